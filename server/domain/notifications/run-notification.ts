// What a finished run tells whom (issue 16): the events a report raises, the channels that want
// them, and the message every channel carries. Pure: the sending lives in server/notifications/.
import { REGRESSION_THRESHOLD } from '../read-models/aggregates.js';
import type { NotificationChannel, NotificationsSpec, RestoreReport } from '../resources/resources.js';

export type NotificationEvent = 'failed' | 'partial' | 'succeeded' | 'slaexceeded' | 'regressed';
export const CLOUDEVENT_TYPE_PREFIX = 'dev.rehearsal.run.';

/** spec.notifications with its defaults applied. */
export interface NotificationPreferences {
  events: ReadonlySet<NotificationEvent>;
  channels: readonly NotificationChannel[];
}

/**
 * The test's own notifications replace the server's default entirely (a test that wants none says
 * channels: []). Defaults: failures, SLA breaches and regressions; not partial runs or passes.
 */
export function resolvePreferences(
  own: NotificationsSpec | undefined,
  fallback: NotificationsSpec | undefined,
): NotificationPreferences {
  const spec = own ?? fallback;
  if (!spec) return { events: new Set(), channels: [] };
  const events = new Set<NotificationEvent>();
  if (spec.onFailure ?? true) events.add('failed');
  if (spec.onPartial ?? false) events.add('partial');
  if (spec.onSuccess ?? false) events.add('succeeded');
  if (spec.onSLAExceeded ?? true) events.add('slaexceeded');
  if (spec.onRegression ?? true) events.add('regressed');
  return { events, channels: spec.channels };
}

/** Every event the run raised, in a fixed order (the result first). */
export function runEvents(report: RestoreReport, previousScore: number | undefined): NotificationEvent[] {
  const spec = report.spec;
  const events: NotificationEvent[] = [
    spec.result === 'fail' ? 'failed' : spec.result === 'partial' ? 'partial' : 'succeeded',
  ];
  if (spec.rto?.withinSLA === false) events.push('slaexceeded');
  if (previousScore !== undefined && spec.score < previousScore - REGRESSION_THRESHOLD) events.push('regressed');
  return events;
}

export interface PlannedDelivery {
  channel: NotificationChannel;
  event: NotificationEvent;
  /** Key of the delivery record: "<channel>/<event>". */
  key: string;
}

export function deliveriesFor(
  report: RestoreReport,
  previousScore: number | undefined,
  preferences: NotificationPreferences,
): PlannedDelivery[] {
  const wanted = runEvents(report, previousScore).filter((event) => preferences.events.has(event));
  return preferences.channels.flatMap((channel) =>
    wanted.map((event) => ({ channel, event, key: `${channel.name}/${event}` })),
  );
}

/** The JSON body of a webhook notification, and the `data` of a CloudEvent. */
export interface RunNotification {
  /** Stable per run and event (the same on every channel and every retry): receivers dedupe on it. */
  id: string;
  event: NotificationEvent;
  /** The CloudEvents type, e.g. dev.rehearsal.run.failed. */
  type: string;
  /** One line for humans. */
  summary: string;
  test: { name: string; namespace: string };
  run: {
    id: string;
    /** RestoreReport name (in the test's namespace). */
    report: string;
    trigger: string;
    startedAt: string;
    completedAt: string;
    /** pass, partial or fail. */
    result: string;
    /** @isInt */
    score: number;
    /**
     * Score of the previous run of the test; absent for the first run.
     * @isInt
     */
    previousScore?: number;
    sourceNamespaces: string[];
    sandboxNamespaces: string[];
    backup: string;
    rto: { measured?: string; target?: string; withinSLA?: boolean };
    failure?: { reason: string; message: string };
    /** Checks with status fail or error. */
    failedChecks: { name: string; kind: string; status: string; message: string }[];
  };
}

const HEADLINES: Record<NotificationEvent, string> = {
  failed: 'failed',
  partial: 'passed only partially',
  succeeded: 'passed',
  slaexceeded: 'exceeded its RTO target',
  regressed: 'regressed',
};

export function buildRunNotification(
  report: RestoreReport,
  event: NotificationEvent,
  previousScore: number | undefined,
): RunNotification {
  const spec = report.spec;
  const namespace = report.metadata.namespace ?? spec.testRef.namespace;
  const failedChecks = spec.checks
    .filter((check) => check.status === 'fail' || check.status === 'error')
    .map((check) => ({ name: check.name, kind: check.kind, status: check.status, message: check.message }));
  const detail =
    event === 'slaexceeded'
      ? `RTO ${spec.rto.measured ?? '?'} > target ${spec.rto.target ?? '?'}`
      : event === 'regressed'
        ? `score ${spec.score}, was ${previousScore}`
        : `score ${spec.score}${spec.failure ? `: ${spec.failure.reason}` : failedChecks[0] ? `: check ${failedChecks[0].name} ${failedChecks[0].status}` : ''}`;
  return {
    id: `${namespace}/${report.metadata.name}/${event}`,
    event,
    type: `${CLOUDEVENT_TYPE_PREFIX}${event}`,
    summary: `Restore test ${namespace}/${spec.testRef.name} ${HEADLINES[event]} (run ${spec.runId}, ${detail})`,
    test: { name: spec.testRef.name, namespace },
    run: {
      id: spec.runId,
      report: report.metadata.name,
      trigger: spec.trigger,
      startedAt: spec.startedAt,
      completedAt: spec.completedAt,
      result: spec.result,
      score: spec.score,
      ...(previousScore === undefined ? {} : { previousScore }),
      sourceNamespaces: [...spec.sourceNamespaces],
      sandboxNamespaces: [...spec.sandboxNamespaces],
      backup: spec.backup.name,
      rto: {
        ...(spec.rto.measured ? { measured: spec.rto.measured } : {}),
        ...(spec.rto.target ? { target: spec.rto.target } : {}),
        ...(spec.rto.withinSLA === undefined ? {} : { withinSLA: spec.rto.withinSLA }),
      },
      ...(spec.failure ? { failure: { reason: spec.failure.reason, message: spec.failure.message } } : {}),
      failedChecks,
    },
  };
}

/**
 * Text from elsewhere as Slack mrkdwn shows it, not as Slack would act on it (issue 26): check and
 * failure messages carry what a restored application answered, so "<!channel>", "<@U123>" or
 * "<https://evil.example|Approve restore>" in them would ping a channel or draw a link in the
 * team's alert. Slack's escaping (&, <, >) makes them text; line breaks become spaces, so a
 * message cannot forge lines of its own (a fake "*Result* pass").
 */
export function slackText(text: string): string {
  return text
    .replace(/[\r\n\u2028\u2029]+/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/** Slack incoming-webhook body: a text fallback and a few blocks. Every value goes through slackText. */
export function slackMessage(notification: RunNotification): Record<string, unknown> {
  const run = notification.run;
  const t = slackText;
  const fields = [
    `*Result*\n${t(run.result)} (score ${run.score}${run.previousScore === undefined ? '' : `, was ${run.previousScore}`})`,
    `*Sources*\n${t(run.sourceNamespaces.join(', '))}`,
    `*RTO*\n${t(run.rto.measured ?? 'not measured')}${run.rto.target ? ` (target ${t(run.rto.target)})` : ''}`,
    `*Backup*\n${t(run.backup || 'none')}`,
  ];
  const why = [
    ...(run.failure ? [`${t(run.failure.reason)}: ${t(run.failure.message)}`] : []),
    ...run.failedChecks.slice(0, 5).map((check) => `check ${t(check.name)} ${t(check.status)}: ${t(check.message)}`),
  ];
  return {
    text: t(notification.summary),
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `*${t(notification.summary)}*` } },
      { type: 'section', fields: fields.map((text) => ({ type: 'mrkdwn', text })) },
      ...(why.length > 0 ? [{ type: 'section', text: { type: 'mrkdwn', text: why.map((line) => `• ${line}`).join('\n') } }] : []),
      {
        type: 'context',
        elements: [
          { type: 'mrkdwn', text: t(`kubectl restoretest diagnose ${notification.test.name} -n ${notification.test.namespace} --run ${run.id}`) },
        ],
      },
    ],
  };
}

/** A CloudEvents 1.0 event in structured mode (the whole event is the JSON body). */
export function cloudEvent(notification: RunNotification): Record<string, unknown> {
  return {
    specversion: '1.0',
    id: notification.id,
    source: `/apis/rehearsal.dev/v1alpha1/namespaces/${notification.test.namespace}/restoretests/${notification.test.name}`,
    type: notification.type,
    subject: notification.run.id,
    time: notification.run.completedAt,
    datacontenttype: 'application/json',
    data: notification,
  };
}
