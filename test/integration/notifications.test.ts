// Notifications end to end on the real control plane: Rehearsal (under its own ServiceAccount)
// runs restore tests whose runs fail, reads the channel URLs and the HMAC key from a Secret, and
// notifies real HTTP receivers on loopback. Delivery records live on the reports (an annotation),
// which is what makes "exactly once" hold across a SIGKILL and a restart.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createServer } from 'node:net';
import path from 'node:path';
import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { ANNOTATION_NOTIFICATIONS, parseDeliveryRecords } from '../../server/domain/notifications/deliveries.js';
import type { NotificationsSpec, RestoreReport } from '../../server/domain/resources/resources.js';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import { repoRoot } from '../helpers/cluster-info.js';
import {
  createEngineFixture,
  createRestoreTest,
  listReports,
  restoreTestBody,
  trigger,
  uniqueTestName,
  waitForReports,
  type EngineFixture,
} from '../helpers/engine-fixture.js';
import { deleteNamespaces, waitFor, waitForNamespacesGone } from '../helpers/kube.js';
import { NotificationReceivers, verifySignature } from '../helpers/notification-receivers.js';
import { rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startInProcess, startProcess } from '../helpers/rehearsal-server.js';

const HMAC_KEY = 'integration-hmac-key';
const SECRET = 'rehearsal-notifications';
let fixture: EngineFixture;
let receivers: NotificationReceivers;
let rehearsal: Rehearsal | undefined;
let kubeconfigPath: string;
jest.setTimeout(200_000);

const NOTIFY_ENV = { REHEARSAL_NOTIFICATION_BACKOFF_MS: '300', REHEARSAL_NOTIFICATION_TIMEOUT_SECONDS: '30' };
// The receivers are on loopback: only an administrator's allowance lets notifications go there.
const ALLOW_RECEIVERS = { REHEARSAL_NOTIFICATION_ALLOWED_CIDRS: '127.0.0.1/32' };
const UNLABELLED = 'plain-secret';

beforeAll(async () => {
  fixture = await createEngineFixture('notify');
  receivers = await NotificationReceivers.start();
  const paths = ['slack', 'hook', 'ce', 'flaky', 'hang', 'k-slack', 'k-hook', 'k-ce', 'inside', 'unlabelled'];
  const core = fixture.admin.makeApiClient(CoreV1Api);
  await core.createNamespacedSecret({
    namespace: fixture.testNamespace,
    body: {
      // Labelled: meant for notifications, so it may hold a webhook's signing key.
      metadata: { name: SECRET, labels: { 'rehearsal.dev/notifications': 'true' } },
      stringData: {
        hmac: HMAC_KEY,
        metadata: 'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
        ...Object.fromEntries(paths.map((name) => [name, `${receivers.url}/${name}`])),
      },
    },
  });
  // A Secret meant for something else (another system's webhook key, say) that Rehearsal may read.
  await core.createNamespacedSecret({
    namespace: fixture.testNamespace,
    body: { metadata: { name: UNLABELLED }, stringData: { hmac: 'someone-elses-key' } },
  });
  // Least privilege (decision 0009): Rehearsal reads no Secret of a tenant unless the tenant lets it,
  // here by a Role naming the one Secret its channels use.
  const rbac = fixture.admin.makeApiClient(RbacAuthorizationV1Api);
  await rbac.createNamespacedRole({
    namespace: fixture.testNamespace,
    body: {
      metadata: { name: 'rehearsal-notification-secrets' },
      rules: [{ apiGroups: [''], resources: ['secrets'], resourceNames: [SECRET, UNLABELLED], verbs: ['get'] }],
    },
  });
  await rbac.createNamespacedRoleBinding({
    namespace: fixture.testNamespace,
    body: {
      metadata: { name: 'rehearsal-notification-secrets' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'rehearsal-notification-secrets' },
      subjects: [{ kind: 'ServiceAccount', name: 'rehearsal', namespace: 'rehearsal-system' }],
    },
  });
  kubeconfigPath = await rehearsalKubeconfig('notifications.kubeconfig');
}, 120_000);

afterAll(async () => {
  await rehearsal?.stop();
  await receivers?.close();
  await fixture?.stop();
  await deleteNamespaces(fixture.admin, [fixture.source, fixture.testNamespace, fixture.veleroNamespace]);
  // Wait until its tests and reports are gone: a delivery still pending in a terminating namespace
  // would be resumed by the next suite's server, whose audit check must see only its own reads.
  await waitForNamespacesGone(fixture.admin, [fixture.testNamespace], 120_000);
}, 180_000);

function startServer(extra: Record<string, string> = ALLOW_RECEIVERS): Promise<Rehearsal> {
  return startInProcess({
    kubeconfigPath,
    veleroNamespace: fixture.veleroNamespace,
    probeTargets: fixture.endpoints.targets,
    extra: { ...NOTIFY_ENV, ...extra },
  });
}

function channel(name: string, type: 'slack' | 'webhook' | 'cloudevents', key: string): NotificationsSpec['channels'][number] {
  return {
    name,
    type,
    urlSecretRef: { name: SECRET, key },
    ...(type === 'webhook' ? { signingKeySecretRef: { name: SECRET, key: 'hmac' } } : {}),
  };
}

/** A test whose runs fail at once: its backup does not exist (a fail report, no sandbox). */
async function failingTest(prefix: string, channels: NotificationsSpec['channels']): Promise<string> {
  const name = uniqueTestName(prefix);
  await createRestoreTest(
    fixture,
    restoreTestBody(fixture, name, {
      backupSource: {
        backupName: 'does-not-exist',
        namespaces: [{ name: fixture.source }],
        providerNamespace: fixture.veleroNamespace,
      },
      notifications: { channels },
    }),
  );
  return name;
}

async function records(report: RestoreReport) {
  const [fresh] = (await listReports(fixture)).filter((candidate) => candidate.metadata.name === report.metadata.name);
  return parseDeliveryRecords(fresh?.metadata.annotations?.[ANNOTATION_NOTIFICATIONS]);
}

async function settled(report: RestoreReport, count: number) {
  return waitFor(
    async () => {
      const current = await records(report);
      const final = Object.values(current).filter((record) => ['delivered', 'failed', 'abandoned'].includes(record.state));
      return final.length === count ? current : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 200, description: `${count} settled deliveries on ${report.metadata.name}` },
  );
}

describe('notifications of a failing run', () => {
  it('reach Slack, a signed webhook and a CloudEvents sink exactly once each', async () => {
    rehearsal = await startServer();
    const name = await failingTest('notified', [
      channel('slack', 'slack', 'slack'),
      channel('hook', 'webhook', 'hook'),
      channel('ce', 'cloudevents', 'ce'),
    ]);
    await trigger(fixture, name);
    const [report] = await waitForReports(fixture, name, 1, 120_000);
    expect(report!.spec.result).toBe('fail');
    const delivered = await settled(report!, 3);
    expect(Object.values(delivered).map((record) => record.state)).toEqual(['delivered', 'delivered', 'delivered']);
    // Nothing more arrives later (no second sender, no re-send on the annotation's own update).
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receivers.attempts('/slack')).toHaveLength(1);
    expect(receivers.attempts('/hook')).toHaveLength(1);
    expect(receivers.attempts('/ce')).toHaveLength(1);
    const hook = receivers.attempts('/hook')[0]!;
    expect(verifySignature(hook.headers['x-rehearsal-signature'] as string, hook.body, HMAC_KEY)).toBe(true);
    expect(hook.json).toMatchObject({
      type: 'dev.rehearsal.run.failed',
      test: { name, namespace: fixture.testNamespace },
      run: { id: report!.spec.runId, result: 'fail', failure: { reason: 'BackupNotFound' } },
    });
    expect(receivers.attempts('/ce')[0]!.json).toMatchObject({ specversion: '1.0', type: 'dev.rehearsal.run.failed' });
    const metrics = await (await fetch(`http://127.0.0.1:${rehearsal.port()}/metrics`)).text();
    expect(metrics).toMatch(/rehearsal_notifications_total\{channel="slack",outcome="delivered"\} [1-9]/);
  });

  it('a receiver that fails twice gets the event on the third try', async () => {
    receivers.behave('/flaky', { kind: 'fail', times: 2 });
    const name = await failingTest('flaky', [channel('flaky', 'webhook', 'flaky')]);
    await trigger(fixture, name);
    const [report] = await waitForReports(fixture, name, 1, 120_000);
    const delivered = await settled(report!, 1);
    expect(delivered['flaky/failed']).toMatchObject({ state: 'delivered', attempts: 3 });
    expect(receivers.attempts('/flaky').map((request) => (request as { status?: number }).status)).toEqual([503, 503, 200]);
  });

  it('a hanging receiver does not delay the next run', async () => {
    receivers.behave('/hang', { kind: 'hang' });
    const name = await failingTest('hanging', [channel('hang', 'webhook', 'hang')]);
    await trigger(fixture, name);
    const [first] = await waitForReports(fixture, name, 1, 120_000);
    await waitFor(async () => receivers.attempts('/hang').length === 1 || undefined, {
      timeoutMs: 30_000,
      description: 'the first notification to reach the hanging receiver',
    });
    // The receiver now holds the request open for up to 30 s; the next run must not wait for it.
    const started = Date.now();
    await trigger(fixture, name);
    await waitForReports(fixture, name, 2, 120_000);
    const secondRunSeconds = (Date.now() - started) / 1000;
    // The first run's delivery is still held (not retried over it); the second run's own
    // notification may already have reached the receiver too, and is a different delivery.
    const firstId = `${fixture.testNamespace}/${first!.metadata!.name}/failed`;
    const ofFirstRun = receivers.attempts('/hang').filter((request) => (request as { json?: { id?: string } }).json?.id === firstId);
    expect(ofFirstRun).toHaveLength(1);
    expect(secondRunSeconds).toBeLessThan(20);
    await rehearsal!.stop();
    rehearsal = undefined;
  });
});

describe('notification URLs and keys a tenant may not use (issue 26)', () => {
  it('a URL to loopback is refused and nothing is sent: the receiver on 127.0.0.1 gets nothing', async () => {
    rehearsal = await startServer({});
    try {
      const name = await failingTest('inside', [channel('inside', 'slack', 'inside')]);
      await trigger(fixture, name);
      const [report] = await waitForReports(fixture, name, 1, 120_000);
      const final = await settled(report!, 1);
      expect(final['inside/failed']).toMatchObject({ state: 'failed', attempts: 1, detail: 'refused-address' });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(receivers.attempts('/inside')).toHaveLength(0);
    } finally {
      await rehearsal.stop();
      rehearsal = undefined;
    }
  });

  it('the cloud metadata address is refused before any connection, and recorded as a class only', async () => {
    rehearsal = await startServer({});
    try {
      const name = await failingTest('metadata', [channel('meta', 'cloudevents', 'metadata')]);
      await trigger(fixture, name);
      const [report] = await waitForReports(fixture, name, 1, 120_000);
      const final = await settled(report!, 1);
      expect(final['meta/failed']).toEqual(expect.objectContaining({ state: 'failed', attempts: 1, detail: 'refused-address' }));
      const metrics = await (await fetch(`http://127.0.0.1:${rehearsal.port()}/metrics`)).text();
      expect(metrics).toMatch(/rehearsal_notifications_total\{channel="cloudevents",outcome="failed"\} [1-9]/);
    } finally {
      await rehearsal.stop();
      rehearsal = undefined;
    }
  });

  it('a signing key from a Secret not labelled for notifications is never used', async () => {
    rehearsal = await startServer();
    try {
      const name = await failingTest('unlabelled', [
        {
          name: 'unlabelled',
          type: 'webhook',
          urlSecretRef: { name: SECRET, key: 'unlabelled' },
          signingKeySecretRef: { name: UNLABELLED, key: 'hmac' },
        },
      ]);
      await trigger(fixture, name);
      const [report] = await waitForReports(fixture, name, 1, 120_000);
      const final = await settled(report!, 1);
      expect(final['unlabelled/failed']).toMatchObject({ state: 'failed', detail: 'signing-key-not-allowed' });
      expect(receivers.attempts('/unlabelled')).toHaveLength(0);
    } finally {
      await rehearsal.stop();
      rehearsal = undefined;
    }
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const port = (probe.address() as { port: number }).port;
      probe.close(() => resolve(port));
    });
  });
}

describe('a server killed right after the run', () => {
  it('notifies exactly once after its restart', async () => {
    const logFile = path.join(repoRoot, 'test/.tmp/notifications-server.log');
    const options = {
      kubeconfigPath,
      logFile,
      veleroNamespace: fixture.veleroNamespace,
      probeTargets: fixture.endpoints.targets,
      leaderElection: true,
      leaseName: `notify-${fixture.veleroNamespace}`,
    };
    const name = await failingTest('killed', [
      channel('slack', 'slack', 'k-slack'),
      channel('hook', 'webhook', 'k-hook'),
      channel('ce', 'cloudevents', 'k-ce'),
    ]);
    // Killed as soon as the report exists (polled every 20 ms): the first process has sent none,
    // some or all of the notifications; the restarted one must complete exactly the missing ones.
    let first = await startProcess({ ...options, port: await freePort(), extra: { ...NOTIFY_ENV, ...ALLOW_RECEIVERS, REHEARSAL_IDENTITY: `notify-a-${Date.now()}` } });
    try {
      await trigger(fixture, name);
      await waitFor(async () => ((await listReports(fixture, name)).length === 1 ? true : undefined), {
        timeoutMs: 120_000,
        intervalMs: 20,
        description: 'the report of the run',
      });
      await first.crash();
    } catch (error) {
      await first.crash().catch(() => undefined);
      throw error;
    }
    const [report] = await listReports(fixture, name);
    const beforeRestart = await records(report!);
    first = await startProcess({ ...options, port: await freePort(), extra: { ...NOTIFY_ENV, ...ALLOW_RECEIVERS, REHEARSAL_IDENTITY: `notify-b-${Date.now()}` } });
    try {
      const final = await settled(report!, 3);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      for (const receiver of ['/k-slack', '/k-hook', '/k-ce']) {
        expect([receiver, receivers.attempts(receiver).length]).toEqual([receiver, 1]);
      }
      expect(Object.values(final).every((record) => record.state === 'delivered')).toBe(true);
      // What the kill left behind (shown when the assertion above fails).
      expect(Object.values(beforeRestart).every((record) => record.state !== 'sending')).toBe(true);
    } finally {
      await first.stop();
    }
  });
});
