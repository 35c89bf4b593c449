// Sends the notifications of finished runs (issue 16). Driven by the reports themselves, not by the
// engine: a new RestoreReport in the cache starts a job for it, and a sweep at start (and at every
// leader change) picks up reports of the last `maxReportAgeMs` whose deliveries are not settled, so
// a server killed right after a run notifies after its restart. The engine never waits for a
// receiver: jobs run beside it, one per report, each attempt with a deadline.
//
// Every delivery is claimed in the report's annotation before it is sent and settled after (see
// domain/notifications/deliveries.ts for the states and why the report holds them).
import type { Logger } from 'pino';
import {
  ANNOTATION_NOTIFICATIONS,
  nextDeliveryStep,
  parseDeliveryRecords,
  recordAttempt,
  type AttemptOutcome,
  type DeliveryRecord,
  type DeliveryRecords,
  type RetryPolicy,
} from '../domain/notifications/deliveries.js';
import {
  buildRunNotification,
  deliveriesFor,
  resolvePreferences,
  type PlannedDelivery,
} from '../domain/notifications/run-notification.js';
import { toIndexedRun, type ReportIndex } from '../domain/read-models/report-index.js';
import type { NotificationsSpec, RestoreReport, RestoreTest } from '../domain/resources/resources.js';
import type { ReportSummary } from '../domain/read-models/report-summary.js';
import { isKind } from '../kube/errors.js';
import type { InformerHandler } from '../kube/informer.js';
import type { ChannelTarget } from './channel-sender.js';
import { SecretValueError, type SecretValueReader } from './secret-values.js';

export interface NotifierDeps {
  cache: {
    getTest(namespace: string, name: string): RestoreTest | undefined;
    readonly reportIndex: ReportIndex;
    onReportChange(handler: InformerHandler<ReportSummary>): void;
  };
  reports: {
    getReport(namespace: string, name: string): Promise<RestoreReport>;
    annotateReport(
      namespace: string,
      name: string,
      annotations: Record<string, string | null>,
      resourceVersion?: string,
    ): Promise<RestoreReport>;
  };
  secretValue: SecretValueReader;
  send: (target: ChannelTarget, notification: ReturnType<typeof buildRunNotification>) => Promise<AttemptOutcome>;
  /** The server's default (REHEARSAL_NOTIFICATIONS); its Secrets live in serverNamespace. */
  defaults: NotificationsSpec | undefined;
  serverNamespace: string;
  outcomes: { inc(labels: { channel: string; outcome: string }): void };
  log: Logger;
  now: () => Date;
  policy: RetryPolicy;
  /** Reports older than this are not notified (a first start must not replay history). */
  maxReportAgeMs: number;
}

const MAX_CONFLICT_RETRIES = 8;

export class Notifier {
  private running = false;
  private subscribed = false;
  private readonly jobs = new Map<string, Promise<void>>();
  private readonly sleepers = new Set<() => void>();

  constructor(private readonly deps: NotifierDeps) {}

  /** Starts on the leader: follows new reports and sweeps the recent ones. */
  start(): void {
    this.running = true;
    if (!this.subscribed) {
      this.subscribed = true;
      this.deps.cache.onReportChange((event, _key, current) => {
        if (event === 'add' && current) this.reportWritten(current);
      });
    }
    const nowMs = this.deps.now().getTime();
    for (const run of this.deps.cache.reportIndex.runsBetween(nowMs - this.deps.maxReportAgeMs, nowMs)) {
      this.reportWritten(run.report);
    }
  }

  /** Stops starting attempts; jobs waiting for a retry end now, an attempt in flight settles. */
  stop(): void {
    this.running = false;
    for (const wake of this.sleepers) wake();
  }

  /**
   * ENGINE HOOK (optional): "this report was just written". The cache's add event does the same a
   * moment later; calling it only saves that latency.
   */
  reportWritten(report: ReportSummary): void {
    const key = `${report.metadata.namespace}/${report.metadata.name}`;
    if (!this.running || this.jobs.has(key) || !this.wanted(report)) return;
    const job = this.process(key)
      .catch((error: unknown) => this.deps.log.warn({ err: error, report: key }, 'notifying a run failed'))
      .finally(() => this.jobs.delete(key));
    this.jobs.set(key, job);
  }

  /** Resolves when no job is running (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.jobs.size > 0) await Promise.allSettled([...this.jobs.values()]);
  }

  /** Cheap checks from the cache before anything is read from the apiserver. */
  private wanted(report: ReportSummary): boolean {
    const completedMs = Date.parse(report.spec.completedAt);
    if (!(completedMs >= this.deps.now().getTime() - this.deps.maxReportAgeMs)) return false;
    const test = this.deps.cache.getTest(report.metadata.namespace ?? '', report.spec.testRef.name);
    return test !== undefined && resolvePreferences(test.spec.notifications, this.deps.defaults).channels.length > 0;
  }

  private async process(key: string): Promise<void> {
    const [namespace, name] = key.split('/') as [string, string];
    while (this.running) {
      let report: RestoreReport;
      try {
        report = await this.deps.reports.getReport(namespace, name);
      } catch (error) {
        if (isKind(error, 'NotFound')) return;
        throw error;
      }
      const nowMs = this.deps.now().getTime();
      if (Date.parse(report.spec.completedAt) < nowMs - this.deps.maxReportAgeMs) return;
      const test = this.deps.cache.getTest(namespace, report.spec.testRef.name);
      if (!test) return; // deleted with its reports
      const own = test.spec.notifications;
      const previousScore = this.previousScore(report);
      const planned = deliveriesFor(report, previousScore, resolvePreferences(own, this.deps.defaults));
      if (planned.length === 0) return;
      const records = parseDeliveryRecords(report.metadata.annotations?.[ANNOTATION_NOTIFICATIONS]);
      const claims: DeliveryRecords = {};
      const toSend: { delivery: PlannedDelivery; attempt: number }[] = [];
      let wakeAtMs: number | undefined;
      for (const delivery of planned) {
        const step = nextDeliveryStep(records[delivery.key], nowMs);
        if (step.action === 'send') {
          toSend.push({ delivery, attempt: step.attempt });
          claims[delivery.key] = { state: 'sending', attempts: step.attempt, at: new Date(nowMs).toISOString() };
        } else if (step.action === 'abandon') {
          claims[delivery.key] = { ...records[delivery.key]!, state: 'abandoned', at: new Date(nowMs).toISOString() };
          this.deps.outcomes.inc({ channel: delivery.channel.type, outcome: 'abandoned' });
        } else if (step.action === 'wait') {
          wakeAtMs = Math.min(wakeAtMs ?? step.untilMs, step.untilMs);
        }
      }
      if (Object.keys(claims).length === 0) {
        if (wakeAtMs === undefined) return; // every delivery settled
        await this.sleep(wakeAtMs - nowMs);
        continue;
      }
      // Targets first: the window between claiming a delivery and sending it stays as short as a
      // request start, so a crash in between (which abandons the delivery) is as unlikely as can be.
      const secretsNamespace = own ? namespace : this.deps.serverNamespace;
      const targets = await Promise.all(toSend.map(({ delivery }) => this.target(delivery, secretsNamespace)));
      try {
        report = await this.writeRecords(report, { ...records, ...claims });
      } catch (error) {
        if (isKind(error, 'Conflict')) continue; // someone else changed the records: read again
        throw error;
      }
      const sentReport = report;
      const results = await Promise.all(
        toSend.map(async ({ delivery, attempt }, position) => {
          const target = targets[position]!;
          const outcome =
            'kind' in target
              ? target
              : await this.deps.send(target, buildRunNotification(sentReport, delivery.event, previousScore));
          const record = recordAttempt(attempt, outcome, this.deps.now(), this.deps.policy);
          const metric = record.state === 'retrying' ? 'retried' : record.state;
          this.deps.outcomes.inc({ channel: delivery.channel.type, outcome: metric });
          if (record.state === 'failed') {
            this.deps.log.warn({ report: key, channel: delivery.channel.name, event: delivery.event, detail: record.detail }, 'notification not delivered');
          }
          return [delivery.key, record] as const;
        }),
      );
      await this.settle(namespace, name, Object.fromEntries(results));
    }
  }

  /** Where a delivery goes, or the outcome of an attempt that cannot be made. */
  private async target(delivery: PlannedDelivery, secretsNamespace: string): Promise<ChannelTarget | AttemptOutcome> {
    const channel = delivery.channel;
    if (channel.type === 'webhook' && !channel.signingKeySecretRef) {
      return { kind: 'rejected', detail: 'no-signing-key' };
    }
    try {
      return {
        type: channel.type,
        url: await this.deps.secretValue(secretsNamespace, channel.urlSecretRef),
        ...(channel.signingKeySecretRef
          ? {
              signingKey: await this.deps.secretValue(secretsNamespace, channel.signingKeySecretRef, {
                meantForNotifications: true,
              }),
            }
          : {}),
      };
    } catch (error) {
      // A missing Secret (or label) may be there a moment later; worth the retries. The record
      // gets the class only: the message names Secrets and keys, for the logs.
      this.deps.log.warn({ channel: channel.name, problem: (error as Error).message }, 'notification secret unusable');
      const outcome = error instanceof SecretValueError ? error.outcome : 'secret-unreadable';
      return { kind: 'retryable', detail: outcome };
    }
  }

  /** Writes the results of this process's attempts, re-reading the report on conflicts. */
  private async settle(namespace: string, name: string, results: DeliveryRecords): Promise<void> {
    for (let tries = 0; tries < MAX_CONFLICT_RETRIES; tries += 1) {
      const report = await this.deps.reports.getReport(namespace, name);
      const records = parseDeliveryRecords(report.metadata.annotations?.[ANNOTATION_NOTIFICATIONS]);
      try {
        await this.writeRecords(report, { ...records, ...results });
        return;
      } catch (error) {
        if (!isKind(error, 'Conflict')) throw error;
      }
    }
    throw new Error(`could not record notification deliveries on ${namespace}/${name}: conflicts`);
  }

  private writeRecords(report: RestoreReport, records: Record<string, DeliveryRecord>): Promise<RestoreReport> {
    return this.deps.reports.annotateReport(
      report.metadata.namespace!,
      report.metadata.name,
      { [ANNOTATION_NOTIFICATIONS]: JSON.stringify(records) },
      report.metadata.resourceVersion,
    );
  }

  private previousScore(report: RestoreReport): number | undefined {
    const run = toIndexedRun(report);
    return run ? this.deps.cache.reportIndex.previousRun(run)?.report.spec.score : undefined;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, Math.max(0, ms));
      this.sleepers.add(wake);
    });
  }
}
