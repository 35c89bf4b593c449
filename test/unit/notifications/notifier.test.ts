// The notifier against real HTTP receivers on loopback (Slack, signed webhook, CloudEvents), with
// the reports kept in an in-memory store that enforces resourceVersion preconditions like the
// apiserver. The real apiserver path is in test/integration/notifications.test.ts.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import pino from 'pino';
import { ANNOTATION_NOTIFICATIONS, parseDeliveryRecords } from '../../../server/domain/notifications/deliveries.js';
import { ReportIndex } from '../../../server/domain/read-models/report-index.js';
import type { NotificationsSpec, RestoreReport, RestoreTest } from '../../../server/domain/resources/resources.js';
import type { ReportSummary } from '../../../server/domain/read-models/report-summary.js';
import { KubeError } from '../../../server/kube/errors.js';
import type { InformerHandler } from '../../../server/kube/informer.js';
import { sendToChannel } from '../../../server/notifications/channel-sender.js';
import { DEFAULT_CLUSTER_CIDRS, EgressGuard } from '../../../server/notifications/egress-guard.js';
import { Notifier } from '../../../server/notifications/notifier.js';
import { NotificationReceivers, verifySignature } from '../../helpers/notification-receivers.js';
import { makeReport, makeTest } from '../domain/fixtures.js';

const HMAC_KEY = 'k3y-for-tests';
// The receivers are on loopback, which only an administrator's allowance opens (egress-guard.ts).
const loopbackAllowed = new EgressGuard({ allowedCidrs: ['127.0.0.1/32'], clusterCidrs: DEFAULT_CLUSTER_CIDRS, apiServerHosts: [] });
let receivers: NotificationReceivers;

beforeAll(async () => {
  receivers = await NotificationReceivers.start();
});
afterAll(async () => {
  await receivers.close();
});

class ReportStore {
  private readonly reports = new Map<string, RestoreReport>();
  private version = 1;
  writes = 0;

  put(report: RestoreReport): RestoreReport {
    const stored = structuredClone(report);
    stored.metadata.resourceVersion = String((this.version += 1));
    this.reports.set(`${stored.metadata.namespace}/${stored.metadata.name}`, stored);
    return structuredClone(stored);
  }

  async getReport(namespace: string, name: string): Promise<RestoreReport> {
    const report = this.reports.get(`${namespace}/${name}`);
    if (!report) throw new KubeError('NotFound', 404, 'not found');
    return structuredClone(report);
  }

  async annotateReport(
    namespace: string,
    name: string,
    annotations: Record<string, string | null>,
    resourceVersion?: string,
  ): Promise<RestoreReport> {
    const report = await this.getReport(namespace, name);
    if (resourceVersion && report.metadata.resourceVersion !== resourceVersion) {
      throw new KubeError('Conflict', 409, 'the object has been modified');
    }
    this.writes += 1;
    report.metadata.annotations = { ...report.metadata.annotations } as Record<string, string>;
    for (const [key, value] of Object.entries(annotations)) {
      if (value === null) delete report.metadata.annotations[key];
      else report.metadata.annotations[key] = value;
    }
    return this.put(report);
  }

  records(report: RestoreReport) {
    const stored = this.reports.get(`${report.metadata.namespace}/${report.metadata.name}`)!;
    return parseDeliveryRecords(stored.metadata.annotations?.[ANNOTATION_NOTIFICATIONS]);
  }
}

function channels(prefix: string): NotificationsSpec['channels'] {
  return [
    { name: 'slack', type: 'slack', urlSecretRef: { name: 's', key: `${prefix}/slack` } },
    {
      name: 'hook',
      type: 'webhook',
      urlSecretRef: { name: 's', key: `${prefix}/hook` },
      signingKeySecretRef: { name: 's', key: 'hmac' },
    },
    { name: 'ce', type: 'cloudevents', urlSecretRef: { name: 's', key: `${prefix}/ce` } },
  ];
}

interface Harness {
  notifier: Notifier;
  store: ReportStore;
  outcomes: string[];
  secretsRead: string[];
  add(report: RestoreReport): RestoreReport;
}

const notifiers: Notifier[] = [];
afterEach(async () => {
  for (const notifier of notifiers.splice(0)) {
    notifier.stop();
    await notifier.idle();
  }
});

function harness(tests: RestoreTest[], options: { store?: ReportStore; defaults?: NotificationsSpec; timeoutMs?: number } = {}): Harness {
  const store = options.store ?? new ReportStore();
  const index = new ReportIndex();
  const handlers: InformerHandler<ReportSummary>[] = [];
  const outcomes: string[] = [];
  const secretsRead: string[] = [];
  const notifier = new Notifier({
    cache: {
      getTest: (namespace, name) => tests.find((test) => test.metadata.namespace === namespace && test.metadata.name === name),
      reportIndex: index,
      onReportChange: (handler) => handlers.push(handler),
    },
    reports: store,
    secretValue: async (namespace, ref) => {
      secretsRead.push(`${namespace}/${ref.name}/${ref.key}`);
      return ref.key === 'hmac' ? HMAC_KEY : `${receivers.url}/${ref.key}`;
    },
    send: (target, notification) => sendToChannel(target, notification, { timeoutMs: options.timeoutMs ?? 2_000, now: new Date(), guard: loopbackAllowed }),
    defaults: options.defaults,
    serverNamespace: 'rehearsal-system',
    outcomes: { inc: (labels) => outcomes.push(`${labels.channel}:${labels.outcome}`) },
    log: pino({ level: 'silent' }),
    now: () => new Date(),
    policy: { maxAttempts: 5, backoffBaseMs: 20, backoffMaxMs: 200 },
    maxReportAgeMs: 3_600_000,
  });
  notifiers.push(notifier);
  return {
    notifier,
    store,
    outcomes,
    secretsRead,
    add(report) {
      const stored = store.put(report);
      index.add(stored);
      for (const handler of handlers) handler('add', `${stored.metadata.namespace}/${stored.metadata.name}`, stored, undefined);
      return stored;
    },
  };
}

const recent = (): string => new Date(Date.now() - 1_000).toISOString();

describe('Notifier', () => {
  it('sends a failing run exactly once to Slack, a signed webhook and a CloudEvents sink', async () => {
    const test = makeTest({ name: 'shop', spec: { notifications: { channels: channels('a') } } });
    const h = harness([test]);
    h.notifier.start();
    const report = h.add(
      makeReport({ test: 'shop', completedAt: recent(), result: 'fail', failure: { reason: 'ChecksFailed', message: 'orders-present failed' } }),
    );
    await h.notifier.idle();
    // Once more for the same report (an informer re-list, a sweep, the engine hook): nothing new.
    h.notifier.reportWritten(report);
    h.notifier.start();
    await h.notifier.idle();

    const slack = receivers.attempts('/a/slack');
    const hook = receivers.attempts('/a/hook');
    const ce = receivers.attempts('/a/ce');
    expect([slack.length, hook.length, ce.length]).toEqual([1, 1, 1]);
    expect((slack[0]!.json as { text: string }).text).toBe(
      `Restore test rehearsal-system/shop failed (run ${report.spec.runId}, score 30: ChecksFailed)`,
    );
    expect(hook[0]!.headers['content-type']).toBe('application/json');
    expect(verifySignature(hook[0]!.headers['x-rehearsal-signature'] as string, hook[0]!.body, HMAC_KEY)).toBe(true);
    expect(verifySignature(hook[0]!.headers['x-rehearsal-signature'] as string, `${hook[0]!.body} `, HMAC_KEY)).toBe(false);
    expect(hook[0]!.json).toMatchObject({
      id: `rehearsal-system/${report.metadata.name}/failed`,
      event: 'failed',
      type: 'dev.rehearsal.run.failed',
      test: { name: 'shop', namespace: 'rehearsal-system' },
      run: { result: 'fail', score: 30, failure: { reason: 'ChecksFailed' } },
    });
    expect(hook[0]!.headers['x-rehearsal-delivery']).toBe(`rehearsal-system/${report.metadata.name}/failed`);
    expect(ce[0]!.headers['content-type']).toBe('application/cloudevents+json; charset=utf-8');
    expect(ce[0]!.json).toMatchObject({
      specversion: '1.0',
      type: 'dev.rehearsal.run.failed',
      source: '/apis/rehearsal.dev/v1alpha1/namespaces/rehearsal-system/restoretests/shop',
      id: `rehearsal-system/${report.metadata.name}/failed`,
      datacontenttype: 'application/json',
      data: { event: 'failed' },
    });
    expect(Object.values(h.store.records(report)).map((record) => [record.state, record.attempts])).toEqual([
      ['delivered', 1],
      ['delivered', 1],
      ['delivered', 1],
    ]);
    expect(h.outcomes.sort()).toEqual(['cloudevents:delivered', 'slack:delivered', 'webhook:delivered']);
    // Per-test channels read their Secrets in the test's namespace.
    expect(h.secretsRead.every((read) => read.startsWith('rehearsal-system/s/'))).toBe(true);
  });

  it('delivers to a receiver that fails twice on the third attempt', async () => {
    receivers.behave('/b/hook', { kind: 'fail', times: 2 });
    const test = makeTest({ name: 'flaky', spec: { notifications: { channels: [channels('b')[1]!] } } });
    const h = harness([test]);
    h.notifier.start();
    const report = h.add(makeReport({ test: 'flaky', completedAt: recent(), result: 'fail' }));
    await h.notifier.idle();
    expect(receivers.attempts('/b/hook').map((request) => (request as { status?: number }).status)).toEqual([503, 503, 200]);
    expect(h.store.records(report)['hook/failed']).toMatchObject({ state: 'delivered', attempts: 3, detail: 'http-2xx' });
    expect(h.outcomes).toEqual(['webhook:retried', 'webhook:retried', 'webhook:delivered']);
  });

  it('gives up at once on a 4xx and after five attempts on 5xx', async () => {
    receivers.behave('/c/slack', { kind: 'status', status: 404 });
    receivers.behave('/c/ce', { kind: 'fail', times: 100 });
    const chans = channels('c');
    const test = makeTest({ name: 'gone', spec: { notifications: { channels: [chans[0]!, chans[2]!] } } });
    const h = harness([test]);
    h.notifier.start();
    const report = h.add(makeReport({ test: 'gone', completedAt: recent(), result: 'fail' }));
    await h.notifier.idle();
    expect(receivers.attempts('/c/slack')).toHaveLength(1);
    expect(receivers.attempts('/c/ce')).toHaveLength(5);
    expect(h.store.records(report)).toMatchObject({
      'slack/failed': { state: 'failed', attempts: 1, detail: 'http-4xx' },
      'ce/failed': { state: 'failed', attempts: 5, detail: 'http-5xx' },
    });
  });

  it('a hanging receiver does not hold up the notifications of other runs', async () => {
    receivers.behave('/d/hook', { kind: 'hang' });
    const slow = makeTest({ name: 'slow', spec: { notifications: { channels: [channels('d')[1]!] } } });
    const next = makeTest({ name: 'next', spec: { notifications: { channels: [channels('e')[0]!] } } });
    const h = harness([slow, next], { timeoutMs: 1_500 });
    h.notifier.start();
    h.add(makeReport({ test: 'slow', completedAt: recent(), result: 'fail' }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    h.add(makeReport({ test: 'next', completedAt: recent(), result: 'fail' }));
    while (receivers.attempts('/e/slack').length === 0 && Date.now() - started < 5_000) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(receivers.attempts('/e/slack')).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(1_000);
    // The hanging receiver got the first attempt, which is still open.
    expect(receivers.attempts('/d/hook')).toHaveLength(1);
  });

  it('after a restart: resumes retries, never resends a delivered or interrupted one', async () => {
    const store = new ReportStore();
    const test = makeTest({ name: 'restarted', spec: { notifications: { channels: channels('f') } } });
    const report = store.put(makeReport({ test: 'restarted', completedAt: recent(), result: 'fail' }));
    // What a process killed mid-way left: one delivered, one in flight, one waiting for a retry.
    await store.annotateReport('rehearsal-system', report.metadata.name, {
      [ANNOTATION_NOTIFICATIONS]: JSON.stringify({
        'slack/failed': { state: 'delivered', attempts: 1, at: recent() },
        'hook/failed': { state: 'sending', attempts: 1, at: recent() },
        'ce/failed': { state: 'retrying', attempts: 1, at: recent(), nextAt: recent() },
      }),
    });
    const h = harness([test], { store });
    h.add(await store.getReport('rehearsal-system', report.metadata.name));
    h.notifier.start(); // the sweep of a new leader
    await h.notifier.idle();
    expect(receivers.attempts('/f/slack')).toHaveLength(0);
    expect(receivers.attempts('/f/hook')).toHaveLength(0);
    expect(receivers.attempts('/f/ce')).toHaveLength(1);
    expect(store.records(report)).toMatchObject({
      'slack/failed': { state: 'delivered' },
      'hook/failed': { state: 'abandoned' },
      'ce/failed': { state: 'delivered', attempts: 2 },
    });
  });

  it('follows the preferences: defaults, partial, success, SLA, regression, and the global default', async () => {
    const own = makeTest({ name: 'prefs', spec: { notifications: { onSuccess: true, channels: [channels('g')[1]!] } } });
    const global = makeTest({ name: 'global' });
    const quiet = makeTest({ name: 'quiet', spec: { notifications: { channels: [] } } });
    const h = harness([own, global, quiet], { defaults: { onPartial: true, channels: [channels('h')[1]!] } });
    h.notifier.start();
    const first = h.add(makeReport({ test: 'prefs', completedAt: new Date(Date.now() - 5_000).toISOString(), score: 98 }));
    const second = h.add(
      makeReport({ test: 'prefs', completedAt: recent(), result: 'partial', score: 80, rtoTarget: '1m' }),
    );
    h.add(makeReport({ test: 'global', completedAt: recent(), result: 'partial' }));
    h.add(makeReport({ test: 'quiet', completedAt: recent(), result: 'fail' }));
    h.add(makeReport({ test: 'prefs', completedAt: new Date(Date.now() - 7_200_000).toISOString(), result: 'fail' }));
    await h.notifier.idle();
    const events = receivers.attempts('/g/hook').map((request) => `${(request.json as { run: { id: string } }).run.id}:${(request.json as { event: string }).event}`);
    // pass → succeeded (onSuccess); partial is off by default for a test's own settings; the score
    // drop 98 → 80 is a regression; the two-hour-old run is past the notification window.
    expect(events.sort()).toEqual([`${first.spec.runId}:succeeded`, `${second.spec.runId}:regressed`].sort());
    const regressed = receivers.attempts('/g/hook').find((request) => (request.json as { event: string }).event === 'regressed')!;
    expect(regressed.json).toMatchObject({ run: { score: 80, previousScore: 98 } });
    // The global default (partial on) applies to a test without its own; its Secrets are the server's.
    expect(receivers.attempts('/h/hook').map((request) => (request.json as { event: string }).event)).toEqual(['partial']);
    expect(h.secretsRead).toContain('rehearsal-system/s/h/hook');
  });
});
