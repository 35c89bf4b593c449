// The foundation against the real control plane: the CRDs install and validate, namespaces delete
// completely, KWOK pods become Ready, and kubectl shows the printer columns and selects reports by
// test, for every stored form of a report.
import { describe, expect, it, afterAll } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { AppsV1Api, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { decodeDetails } from '../../protocol/stored-report/stored-report.js';
import { encodeDetails, packReport } from '../../server/report-codec/report-encoding.js';
import type { RestoreReport } from '../../server/domain/resources/resources.js';
import { repoRoot } from '../helpers/cluster-info.js';
import { kubectl } from '../helpers/install-crds.js';
import {
  apiStatusCode,
  createNamespace,
  deleteNamespaces,
  namespaceExists,
  testKubeConfig,
  testKubeconfigPath,
  uniqueName,
  waitFor,
} from '../helpers/kube.js';

const kubeConfig = testKubeConfig();
const core = kubeConfig.makeApiClient(CoreV1Api);
const apps = kubeConfig.makeApiClient(AppsV1Api);
const custom = kubeConfig.makeApiClient(CustomObjectsApi);
const GROUP = 'rehearsal.dev';
const VERSION = 'v1alpha1';
const PLURALS: Record<string, string> = {
  RestoreTest: 'restoretests',
  RestoreReport: 'restorereports',
  HealthCheckPolicy: 'healthcheckpolicies',
};
const created: string[] = [];

afterAll(async () => {
  await deleteNamespaces(kubeConfig, created);
});

async function freshNamespace(prefix: string): Promise<string> {
  const name = await createNamespace(kubeConfig, uniqueName(prefix));
  created.push(name);
  return name;
}

interface Fixture {
  file: string;
  object: { kind: string; metadata: { name: string; namespace?: string } } & Record<string, unknown>;
  field?: string;
}

function loadYamlDir(dir: string): Fixture[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .flatMap((file) => {
      const text = readFileSync(path.join(dir, file), 'utf8');
      const field = /^# field: (\S+)/m.exec(text)?.[1];
      return parseAllDocuments(text, { version: '1.1' })
        .map((doc) => doc.toJS() as Fixture['object'] | null)
        .filter((object): object is Fixture['object'] => object !== null)
        .map((object) => ({ file, object, ...(field ? { field } : {}) }));
    });
}

async function createCustom(namespace: string, object: Fixture['object']): Promise<Record<string, unknown>> {
  return (await custom.createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace,
    plural: PLURALS[object.kind]!,
    body: { ...object, metadata: { ...object.metadata, namespace } },
    // As kubectl does: an unknown field is an error, not silently pruned.
    fieldValidation: 'Strict',
  })) as Record<string, unknown>;
}

describe('the Rehearsal CRDs on a real apiserver', () => {
  it('are installed and established with short names and the rehearsal category', () => {
    const out = kubectl(testKubeconfigPath(), ['api-resources', '--api-group=rehearsal.dev', '-o', 'wide']);
    expect(out).toMatch(/restoretests\s+rtest\s+rehearsal\.dev\/v1alpha1\s+true\s+RestoreTest/);
    expect(out).toMatch(/restorereports\s+rrep\s+rehearsal\.dev\/v1alpha1\s+true\s+RestoreReport/);
    expect(out).toMatch(/healthcheckpolicies\s+hcp\s+rehearsal\.dev\/v1alpha1\s+true\s+HealthCheckPolicy/);
    expect(out).toMatch(/rehearsal/);
  });

  it('accept every sample and apply the defaults', async () => {
    const namespace = await freshNamespace('samples');
    const samples = loadYamlDir(path.join(repoRoot, 'crds/samples'));
    expect(samples.length).toBeGreaterThanOrEqual(5);
    for (const { object } of samples) {
      await createCustom(namespace, object);
    }
    const minimal = samples.find(({ file }) => file.includes('minimal'))!.object;
    const stored = (await custom.getNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace,
      plural: 'restoretests',
      name: minimal.metadata.name,
    })) as { spec: Record<string, Record<string, unknown>> & { historyLimit: number } };
    expect(stored.spec.schedule!.timezone).toBe('UTC');
    // Not defaulted by the apiserver (issue 30): absent, the run takes the cluster default (1h built in).
    expect(stored.spec.sandbox!.ttl).toBeUndefined();
    expect(stored.spec.sandbox!.networkIsolation).toBe('strict');
    expect(stored.spec.backupSource!.backupName).toBe('latest');
    expect(stored.spec.historyLimit).toBe(90);
  });

  const invalid = loadYamlDir(path.join(repoRoot, 'test/fixtures/invalid'));
  it.each(invalid.map((fixture) => [fixture.file, fixture] as const))(
    'reject %s with an error naming its field',
    async (_file, fixture) => {
      const namespace = await freshNamespace('invalid');
      let status: number | undefined;
      let body = '';
      try {
        await createCustom(namespace, fixture.object);
      } catch (error) {
        status = apiStatusCode(error);
        const raw = (error as { body?: unknown }).body;
        body = typeof raw === 'string' ? raw : JSON.stringify(raw);
      }
      // 422 for schema and CEL violations; 400 for strict decoding (an unknown field).
      expect(fixture.file.includes('unknown-field') ? 400 : 422).toBe(status);
      expect(fixture.field).toBeDefined();
      expect(body).toContain(fixture.field!);
    },
  );
});

// Our removal of a deleted test's reports (reports carry no ownerReference since issue 17) is
// engine/report-cascade.ts, tested against the apiserver in test/integration/report-cascade.test.ts;
// Kubernetes' own garbage collector is not ours to test.
describe('namespace deletion', () => {
  it('deletes a namespace holding a Deployment, Service, ConfigMap and Secret completely', async () => {
    const namespace = uniqueName('ns-delete');
    await createNamespace(kubeConfig, namespace);
    await apps.createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name: 'web' },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
        },
      },
    });
    await core.createNamespacedService({
      namespace,
      body: { metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } },
    });
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'settings' }, data: { a: 'b' } } });
    await core.createNamespacedSecret({ namespace, body: { metadata: { name: 'creds' }, stringData: { password: 'x' } } });
    await waitFor(async () => (await core.listNamespacedPod({ namespace })).items.length === 2, {
      description: 'pods to exist',
    });
    await core.deleteNamespace({ name: namespace });
    await waitFor(
      async () => {
        try {
          await core.readNamespace({ name: namespace });
          return false;
        } catch (error) {
          return apiStatusCode(error) === 404;
        }
      },
      { timeoutMs: 60_000, intervalMs: 500, description: `namespace ${namespace} to be gone (not stuck Terminating)` },
    );
    expect(await namespaceExists(kubeConfig, namespace)).toBe(false);
  }, 90_000);
});

describe('KWOK nodes', () => {
  it('run a Deployment to Ready replicas without a kubelet', async () => {
    const namespace = await freshNamespace('kwok');
    await apps.createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name: 'api' },
        spec: {
          replicas: 3,
          selector: { matchLabels: { app: 'api' } },
          template: { metadata: { labels: { app: 'api' } }, spec: { containers: [{ name: 'api', image: 'example/api:1' }] } },
        },
      },
    });
    const ready = await waitFor(
      async () => {
        const deployment = await apps.readNamespacedDeployment({ namespace, name: 'api' });
        return deployment.status?.readyReplicas === 3 ? deployment : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250, description: 'three ready replicas' },
    );
    expect(ready.status?.availableReplicas).toBe(3);
    const pods = await core.listNamespacedPod({ namespace });
    expect(pods.items.every((pod) => pod.spec?.nodeName?.startsWith('kwok-'))).toBe(true);
  }, 90_000);
});

describe('kubectl', () => {
  it('shows the RestoreTest printer columns with get rtest -A', async () => {
    const namespace = await freshNamespace('columns');
    const samples = loadYamlDir(path.join(repoRoot, 'crds/samples'));
    const test = samples.find(({ file }) => file.includes('minimal'))!.object;
    await createCustom(namespace, test);
    const out = kubectl(testKubeconfigPath(), ['get', 'rtest', '-A']);
    const header = out.split('\n')[0]!;
    for (const column of ['NAMESPACE', 'NAME', 'PHASE', 'LAST SCORE', 'LAST RESULT', 'LAST RUN', 'NEXT RUN', 'AGE']) {
      expect(header).toContain(column);
    }
    expect(out).toContain(namespace);
  });

  it('shows the RestoreReport printer columns and selects by test, for every stored form', async () => {
    const namespace = await freshNamespace('rrep-columns');
    const samples = loadYamlDir(path.join(repoRoot, 'crds/samples'));
    const sample = (file: string): RestoreReport => samples.find((s) => s.file === file)!.object as unknown as RestoreReport;
    const pass = sample('restorereport-pass.yaml');
    const fail = sample('restorereport-fail.yaml');
    // As the writer stores it now (issue 30: test, rtoMeasured, backupName and checkSummary, no
    // map, runId in details); as the fifth issue-17 form did (no backupName or checkSummary, the
    // whole backup in details); as the third and fourth forms did (testRef.name and runId fields);
    // as the second did (rto.measured nested too); and expanded, as before issue 17.
    const current = packReport(pass);
    const { backupName, checkSummary: _summary, details: currentDetails, ...fifthKept } = current.spec as Record<string, unknown>;
    const currentRest = decodeDetails(currentDetails as string);
    const fifthDetails = encodeDetails({ ...currentRest, backup: { ...(currentRest.backup as object), name: backupName } });
    const fifthForm = { ...current, metadata: { ...current.metadata, name: 'shop-weekly-fifth' }, spec: { ...fifthKept, details: fifthDetails } };
    const { test, details, ...kept } = fifthForm.spec as Record<string, unknown>;
    const { runId, ...rest } = decodeDetails(details as string);
    const fourth: Record<string, unknown> = { ...kept, testRef: { name: test }, runId, details: encodeDetails(rest) };
    const fourthForm = { ...current, metadata: { ...current.metadata, name: 'shop-weekly-fourth' }, spec: fourth };
    const { rtoMeasured, ...second } = fourth;
    const secondForm = { ...current, metadata: { ...current.metadata, name: 'shop-weekly-second' }, spec: { ...second, rto: { measured: rtoMeasured } } };
    for (const object of [current, fifthForm, fourthForm, secondForm, fail]) await createCustom(namespace, object as unknown as Fixture['object']);
    const stored = (await custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: 'restorereports', name: pass.metadata.name })) as { spec: Record<string, unknown> };
    expect([stored.spec.rtoMeasured, stored.spec.rto, stored.spec.test, stored.spec.testRef, stored.spec.runId]).toEqual([pass.spec.rto.measured, undefined, 'shop-weekly', undefined, undefined]);
    expect([stored.spec.backupName, stored.spec.backup, stored.spec.checkSummary]).toEqual([pass.spec.backup.name, undefined, pass.spec.checkSummary]);

    const lines = kubectl(testKubeconfigPath(), ['get', 'rrep', '-n', namespace, '-o', 'wide']).trimEnd().split('\n');
    const header = lines[0]!;
    const order = ['NAME', 'TEST', 'BACKUP', 'RESULT', 'SCORE', 'CHECKS', 'RTO', 'COMPLETED', 'AGE', 'OLDER RTO', 'OLDER TEST', 'OLDER BACKUP'];
    const starts = order.map((column) => [column, header.search(new RegExp(`(^|\\s)${column}(\\s|$)`)) + (column === 'NAME' ? 0 : 1)] as const);
    expect(new Set(starts.map(([, start]) => start)).size).toBe(starts.length);
    const cell = (line: string, column: string): string => {
      const index = starts.findIndex(([name]) => name === column);
      return line.slice(starts[index]![1], starts[index + 1]?.[1]).trim();
    };
    const rows = Object.fromEntries(lines.slice(1).map((line) => [cell(line, 'NAME'), line]));
    const shown = ['TEST', 'BACKUP', 'RESULT', 'SCORE', 'CHECKS', 'RTO', 'OLDER RTO', 'OLDER TEST', 'OLDER BACKUP'];
    const columns = (name: string): string[] => shown.map((column) => cell(rows[name]!, column));
    const { measured } = pass.spec.rto;
    const score = String(pass.spec.score);
    const backup = pass.spec.backup.name;
    const checks = pass.spec.checkSummary!;
    expect(columns(pass.metadata.name)).toEqual(['shop-weekly', backup, 'pass', score, checks, measured, '', '', '']);
    expect(columns('shop-weekly-fifth')).toEqual(['shop-weekly', '', 'pass', score, '', measured, '', '', '']);
    expect(columns('shop-weekly-fourth')).toEqual(['', '', 'pass', score, '', measured, '', 'shop-weekly', '']);
    expect(columns('shop-weekly-second')).toEqual(['', '', 'pass', score, '', '', measured, 'shop-weekly', '']);
    expect(columns(fail.metadata.name)).toEqual([
      '',
      '',
      'fail',
      String(fail.spec.score),
      fail.spec.checkSummary!,
      '',
      fail.spec.rto.measured,
      'payments-full',
      fail.spec.backup.name,
    ]);

    // spec.test selects the reports stored since the fifth cut, spec.testRef.name the older ones.
    const select = (selector: string): string[] =>
      kubectl(testKubeconfigPath(), ['get', 'rrep', '-n', namespace, '--field-selector', selector, '-o', 'name']).trim().split('\n').filter(Boolean).sort();
    expect(select('spec.test=shop-weekly')).toEqual([`restorereport.rehearsal.dev/${pass.metadata.name}`, 'restorereport.rehearsal.dev/shop-weekly-fifth'].sort());
    expect(select('spec.testRef.name=shop-weekly')).toEqual(['restorereport.rehearsal.dev/shop-weekly-fourth', 'restorereport.rehearsal.dev/shop-weekly-second']);
    expect(select('spec.testRef.name=payments-full')).toEqual([`restorereport.rehearsal.dev/${fail.metadata.name}`]);

    // The CEL rules: a report must name its test one way or the other, and spec.test is only the
    // stored form (beside details); a report without details still needs testRef and runId.
    const rejected = async (name: string, spec: Record<string, unknown>): Promise<string> => {
      try {
        await createCustom(namespace, { ...current, metadata: { name }, spec } as unknown as Fixture['object']);
        return 'accepted';
      } catch (error) {
        return String((error as { body?: unknown }).body ?? error);
      }
    };
    expect(await rejected('nameless', { ...kept, details })).toContain('spec.test');
    expect(await rejected('test-without-details', { ...fail.spec, test: 'payments-full' })).toContain('only beside details');
    expect(await rejected('backup-name-without-details', { ...fail.spec, backupName: 'nightly' })).toContain('spec.backupName is the stored form');
    const { runId: _runId, ...withoutRunId } = fail.spec;
    expect(await rejected('expanded-without-run', withoutRunId)).toContain('must have testRef, runId');
  });
});
