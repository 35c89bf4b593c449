// Cross-namespace dependencies on the real control plane (decision 0004, the 10-point level). The
// shop's source namespace gets a ConfigMap naming a Service in a second source namespace (restored
// with it), a ready Service and a Service without endpoints in a namespace the test does not
// restore, and a Deployment whose env names the shop's own source namespace. One simulated Velero
// restore of both sources (strict isolation) must report each with its status and score 3 of 4
// satisfied; the same restore with networkIsolation none fails both values naming a source
// namespace (the copy would call production).
// The audit log then shows the references were only read: nothing outside the sandboxes written.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { AppsV1Api, CoreV1Api, DiscoveryV1Api } from '@kubernetes/client-node';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import { auditLogPath, readAuditEvents, unsafeWrites, writesIn } from '../helpers/audit.js';
import {
  createEngineFixture,
  createRestoreTest,
  restoreTestBody,
  trigger,
  uniqueTestName,
  waitForReports,
  type EngineFixture,
} from '../helpers/engine-fixture.js';
import { createNamespace, deleteNamespaces, uniqueName } from '../helpers/kube.js';
import { REHEARSAL_USER, rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';
import { shopChecks } from '../helpers/sample-app.js';
import { createBackup } from '../velero/simulator.js';

jest.setTimeout(200_000);

let fixture: EngineFixture;
let rehearsal: Rehearsal;
const suiteStarted = new Date();
const ledger = uniqueName('deps-ledger');
const outside = uniqueName('deps-outside');
const sandboxesSeen = new Set<string>();

async function service(namespace: string, name: string, endpointReady?: boolean): Promise<void> {
  const core = fixture.admin.makeApiClient(CoreV1Api);
  await core.createNamespacedService({ namespace, body: { metadata: { name }, spec: { ports: [{ port: 80 }] } } });
  if (endpointReady === undefined) return;
  // A selector-less Service: its EndpointSlice is written by hand (no controller runs here).
  await fixture.admin.makeApiClient(DiscoveryV1Api).createNamespacedEndpointSlice({
    namespace,
    body: {
      metadata: { name: `${name}-1`, labels: { 'kubernetes.io/service-name': name } },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.254.0.7'], conditions: { ready: endpointReady } }],
      ports: [{ port: 80, protocol: 'TCP' }],
    },
  });
}

beforeAll(async () => {
  fixture = await createEngineFixture('deps');
  await Promise.all([createNamespace(fixture.admin, ledger), createNamespace(fixture.admin, outside)]);
  await service(ledger, 'ledger');
  await service(outside, 'pricing', true);
  await service(outside, 'stale', false);
  const core = fixture.admin.makeApiClient(CoreV1Api);
  await core.createNamespacedConfigMap({
    namespace: fixture.source,
    body: {
      metadata: { name: 'upstreams' },
      data: {
        'app.yaml': `ledger: http://ledger.${ledger}.svc.cluster.local:80/v1\npricing: pricing.${outside}:80\n`,
        STALE_URL: `http://stale.${outside}.svc/`,
      },
    },
  });
  await fixture.admin.makeApiClient(AppsV1Api).createNamespacedDeployment({
    namespace: fixture.source,
    body: {
      metadata: { name: 'mailer' },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'mailer' } },
        template: {
          metadata: { labels: { app: 'mailer' } },
          spec: {
            containers: [
              { name: 'mailer', image: 'example/mailer:1', env: [{ name: 'SHOP', value: `http://web.${fixture.source}.svc.cluster.local` }] },
            ],
          },
        },
      },
    },
  });
  rehearsal = await startInProcess({
    kubeconfigPath: await rehearsalKubeconfig('dependencies.kubeconfig'),
    veleroNamespace: fixture.veleroNamespace,
    probeTargets: fixture.endpoints.targets,
  });
}, 120_000);

afterAll(async () => {
  await rehearsal?.stop();
  await fixture?.stop();
  if (fixture) await deleteNamespaces(fixture.admin, [fixture.source, fixture.testNamespace, fixture.veleroNamespace, ledger, outside]);
});

describe('cross-namespace dependencies', () => {
  it('reports each reference with its status and scores the level from them', async () => {
    const backup = uniqueName('deps-both');
    await createBackup(fixture.admin, { name: backup, namespaces: [fixture.source, ledger], veleroNamespace: fixture.veleroNamespace });
    const name = uniqueTestName('deps');
    await createRestoreTest(
      fixture,
      restoreTestBody(fixture, name, {
        backupSource: {
          backupName: backup,
          namespaces: [{ name: fixture.source }, { name: ledger }],
          providerNamespace: fixture.veleroNamespace,
        },
        healthChecks: { checks: shopChecks() },
      }),
    );
    await trigger(fixture, name);
    const [report] = await waitForReports(fixture, name, 1, 150_000);
    report!.spec.sandboxNamespaces.forEach((sandbox) => sandboxesSeen.add(sandbox));
    const [shopSandbox, ledgerSandbox] = report!.spec.sandboxNamespaces;
    const statuses = Object.fromEntries((report!.spec.dependencies ?? []).map((entry) => [`${entry.from} → ${entry.to}`, entry]));
    expect(Object.keys(statuses).sort()).toEqual(
      [
        `ConfigMap/${fixture.source}/upstreams → ledger.${ledger}`,
        `ConfigMap/${fixture.source}/upstreams → pricing.${outside}`,
        `ConfigMap/${fixture.source}/upstreams → stale.${outside}`,
        `Deployment/${fixture.source}/mailer → web.${fixture.source}`,
      ].sort(),
    );
    expect(statuses[`ConfigMap/${fixture.source}/upstreams → ledger.${ledger}`]).toMatchObject({
      status: 'restored',
      message: `restored in ${ledgerSandbox}; the value still names ${ledger} (the strict NetworkPolicy keeps the copy from reaching it)`,
    });
    expect(statuses[`ConfigMap/${fixture.source}/upstreams → pricing.${outside}`]?.status).toBe('reachable');
    expect(statuses[`ConfigMap/${fixture.source}/upstreams → stale.${outside}`]?.status).toBe('unreachable');
    // Its own source: the sandbox copy has the Service and strict isolation keeps production out of reach.
    expect(statuses[`Deployment/${fixture.source}/mailer → web.${fixture.source}`]).toMatchObject({
      status: 'restored',
      message: `restored in ${shopSandbox}; the value still names ${fixture.source} (the strict NetworkPolicy keeps the copy from reaching it)`,
    });
    // Failed ones first in the report.
    expect(report!.spec.dependencies![0]?.status).toBe('unreachable');
    const level = report!.spec.levels.find((entry) => entry.name === 'crossNamespace')!;
    expect(level.points).toBe(7); // 3 of 4 satisfied, rounded down
    expect(level.detail).toMatch(/^3\/4 cross-namespace dependencies satisfied; not satisfied: /);
  });

  it('without network isolation, a value naming a source namespace fails: the copy would call production', async () => {
    const backup = uniqueName('deps-open');
    await createBackup(fixture.admin, { name: backup, namespaces: [fixture.source, ledger], veleroNamespace: fixture.veleroNamespace });
    const name = uniqueTestName('deps-open');
    await createRestoreTest(
      fixture,
      restoreTestBody(fixture, name, {
        backupSource: {
          backupName: backup,
          namespaces: [{ name: fixture.source }, { name: ledger }],
          providerNamespace: fixture.veleroNamespace,
        },
        sandbox: { networkIsolation: 'none' },
        healthChecks: { checks: shopChecks() },
      }),
    );
    await trigger(fixture, name);
    const [report] = await waitForReports(fixture, name, 1, 150_000);
    report!.spec.sandboxNamespaces.forEach((sandbox) => sandboxesSeen.add(sandbox));
    const [shopSandbox] = report!.spec.sandboxNamespaces;
    const statuses = Object.fromEntries((report!.spec.dependencies ?? []).map((entry) => [entry.to, entry]));
    expect(statuses[`web.${fixture.source}`]).toMatchObject({
      status: 'production',
      message: `names source namespace ${fixture.source} and networkIsolation is none: the restored copy in ${shopSandbox} would talk to production`,
    });
    expect(statuses[`ledger.${ledger}`]?.status).toBe('production');
    expect(statuses[`pricing.${outside}`]?.status).toBe('reachable');
    const level = report!.spec.levels.find((entry) => entry.name === 'crossNamespace')!;
    expect(level.points).toBe(2); // 1 of 4 satisfied, rounded down
  });

  it('read the references without writing outside the sandboxes', async () => {
    const logPath = auditLogPath();
    if (!logPath) {
      console.warn('no audit log for this cluster (not the local binaries): safety assertion skipped');
      return;
    }
    const events = readAuditEvents(logPath, suiteStarted).filter((event) => event.user.username === REHEARSAL_USER);
    const offending = unsafeWrites(writesIn(events), {
      isSource: (name) => [fixture.source, ledger, outside].includes(name),
      isSandbox: (name) => sandboxesSeen.has(name) || name.startsWith('rehearsal-'),
      ownNamespace: 'rehearsal-system',
    });
    expect(offending.map((event) => `${event.verb} ${event.requestURI}`)).toEqual([]);
    // Outside the sandboxes: the two Services were read (the production one never: it is not
    // looked up), with their EndpointSlices.
    const outsideReads = events.filter((event) => event.objectRef?.namespace === outside).map((event) => `${event.verb} ${event.objectRef?.resource}`);
    expect(new Set(outsideReads)).toEqual(new Set(['get services', 'list endpointslices']));
    expect(events.some((event) => event.objectRef?.namespace === fixture.source && event.objectRef?.resource === 'services')).toBe(false);
  });
});
