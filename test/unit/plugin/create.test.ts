// create / update / delete: the body sent for every flag, -f files (YAML, JSON, stdin), PUT
// semantics for update, and kubectl-style confirmations.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { FakeApi } from './support/fake-api.js';
import { runPlugin } from './support/run-plugin.js';

let fake: FakeApi;
const dir = mkdtempSync(path.join(tmpdir(), 'rh-plugin-create-'));

beforeAll(async () => {
  fake = await FakeApi.start();
});

afterAll(async () => {
  await fake.close();
});

afterEach(() => {
  expect(fake.problems).toEqual([]);
  fake.requests.length = 0;
});

const EVERY_FLAG = [
  '--provider', 'velero',
  '--backup', 'nightly-20260315010000',
  '--source-namespace', 'payments',
  '--source-namespace', 'payments-db,payments-cache',
  '--cron', '0 2 * * *',
  '--timezone', 'Europe/Berlin',
  '--namespace-prefix', 'dr',
  '--ttl', '2h',
  '--network-isolation', 'none',
  '--health-check-policy', 'payments-checks',
  '--max-rto', '15m',
  '--max-rpo', '24h',
  '--alert-on-exceed',
  '--history-limit', '30',
  '--pod-security', 'restricted',
  '--log-lines', '300',
  '--log-containers', 'all',
  '--no-log-init-containers',
  '--log-previous',
  '--log-events',
  '--selector', 'app=web,tier in (front, api),!legacy',
  '--include-resource', 'deployments.apps',
  '--include-resource', 'services,persistentvolumeclaims',
];

const EVERY_FIELD = {
  name: 'payments',
  namespace: 'team-a',
  provider: 'velero',
  backupName: 'nightly-20260315010000',
  sourceNamespaces: ['payments', 'payments-db', 'payments-cache'],
  cron: '0 2 * * *',
  timezone: 'Europe/Berlin',
  namespacePrefix: 'dr',
  ttl: '2h',
  networkIsolation: 'none',
  healthCheckPolicy: 'payments-checks',
  maxRTO: '15m',
  maxRPO: '24h',
  alertOnExceed: true,
  historyLimit: 30,
  restore: { podSecurity: 'restricted' },
  logCollection: { lines: 300, containers: 'all', initContainers: false, previous: true, events: true },
  labelSelector: {
    matchLabels: { app: 'web' },
    matchExpressions: [
      { key: 'tier', operator: 'In', values: ['front', 'api'] },
      { key: 'legacy', operator: 'DoesNotExist' },
    ],
  },
  includedResources: [
    { group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments' },
    { version: 'v1', kind: 'Service', resource: 'services' },
    { version: 'v1', kind: 'PersistentVolumeClaim', resource: 'persistentvolumeclaims' },
  ],
};

describe('create', () => {
  it('sends every CreateTestInput field given as a flag', async () => {
    const result = await runPlugin(['create', 'payments', '-n', 'team-a', ...EVERY_FLAG, '--server', fake.url]);
    expect(result).toEqual({ code: 0, stdout: 'restoretest.rehearsal.dev/payments created\n', stderr: '' });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({ method: 'POST', path: '/api/v1/tests', body: EVERY_FIELD });
  });

  it('sends only what was given (the API fills in its defaults) and no namespace when none is known', async () => {
    await runPlugin(['create', 'minimal', '--provider', 'kasten', '--source-namespace', 'inventory', '--cron', '@daily', '--server', fake.url]);
    expect(fake.requests[0]?.body).toEqual({ name: 'minimal', provider: 'kasten', sourceNamespaces: ['inventory'], cron: '@daily' });
  });

  it('sends --on-backup and --every-nth-backup, with no cron when none is given (issue 32)', async () => {
    const result = await runPlugin(['create', 'after-backup', '--provider', 'velero', '--source-namespace', 'shop', '--on-backup', '--every-nth-backup', '3', '--server', fake.url]);
    expect(result.code).toBe(0);
    expect(fake.requests[0]?.body).toEqual({ name: 'after-backup', provider: 'velero', sourceNamespaces: ['shop'], onBackup: true, everyNthBackup: 3 });
  });

  it('reads -f YAML, JSON and stdin; flags override the file', async () => {
    const yamlFile = path.join(dir, 'payments.yaml');
    writeFileSync(yamlFile, 'name: payments\nnamespace: team-a\nprovider: velero\nsourceNamespaces: [payments]\ncron: "0 2 * * *"\nmaxRTO: 15m\nhistoryLimit: 10\n');
    const jsonFile = path.join(dir, 'payments.json');
    writeFileSync(jsonFile, JSON.stringify(EVERY_FIELD));
    expect((await runPlugin(['create', '-f', yamlFile, '--max-rto', '20m', '--server', fake.url])).code).toBe(0);
    expect((await runPlugin(['create', 'payments', '-f', jsonFile, '-o', 'name', '--server', fake.url])).stdout).toBe('restoretest.rehearsal.dev/payments\n');
    expect((await runPlugin(['create', '-f', '-', '--server', fake.url], { stdin: JSON.stringify({ ...EVERY_FIELD, name: 'from-stdin' }) })).code).toBe(0);
    expect(fake.requests.map((request) => request.body)).toEqual([
      { name: 'payments', namespace: 'team-a', provider: 'velero', sourceNamespaces: ['payments'], cron: '0 2 * * *', maxRTO: '20m', historyLimit: 10 },
      EVERY_FIELD,
      { ...EVERY_FIELD, name: 'from-stdin' },
    ]);
  });

  it('takes the restore transforms from -f; --pod-security sets the floor beside them', async () => {
    const file = path.join(dir, 'restore.yaml');
    writeFileSync(
      file,
      'name: shop\nprovider: velero\nsourceNamespaces: [shop]\ncron: "@daily"\n' +
        'restore:\n  exclude: [{ group: monitoring.coreos.com, version: v1, kind: ServiceMonitor, resource: servicemonitors }]\n',
    );
    expect((await runPlugin(['create', '-f', file, '--pod-security', 'privileged', '--server', fake.url])).code).toBe(0);
    expect(fake.requests[0]?.body).toMatchObject({
      restore: {
        exclude: [{ group: 'monitoring.coreos.com', version: 'v1', kind: 'ServiceMonitor', resource: 'servicemonitors' }],
        podSecurity: 'privileged',
      },
    });
  });

  it('merges the --log-* flags into the file\'s logCollection, and refuses a bad --log-lines before any call (issue 30)', async () => {
    const file = path.join(dir, 'logs.yaml');
    writeFileSync(file, 'name: shop\nprovider: velero\nsourceNamespaces: [shop]\ncron: "@daily"\nlogCollection: { lines: 20, events: false }\n');
    expect((await runPlugin(['create', '-f', file, '--log-containers', 'all', '--no-log-previous', '--server', fake.url])).code).toBe(0);
    expect(fake.requests[0]?.body).toMatchObject({ logCollection: { lines: 20, events: false, containers: 'all', previous: false } });
    for (const lines of ['0', '1001', 'many']) {
      const result = await runPlugin(['create', '-f', file, '--log-lines', lines, '--server', fake.url]);
      expect(result).toEqual({ code: 2, stdout: '', stderr: `error: invalid --log-lines "${lines}": expected a whole number from 1 to 1000\n` });
    }
    expect(fake.requests).toHaveLength(1);
  });

  it('refuses files it cannot send, with exit 2 and one line', async () => {
    const manifest = path.join(dir, 'manifest.yaml');
    writeFileSync(manifest, 'apiVersion: rehearsal.dev/v1alpha1\nkind: RestoreTest\nmetadata: {name: x}\nspec: {}\n');
    const unknown = path.join(dir, 'unknown.yaml');
    writeFileSync(unknown, 'name: x\nprovider: velero\nsourceNamespaces: [a]\ncron: "@daily"\nhealthChecks: {checks: []}\n');
    const named = path.join(dir, 'named.yaml');
    writeFileSync(named, 'name: x\nprovider: velero\nsourceNamespaces: [a]\ncron: "@daily"\n');
    const cases: [string[], string][] = [
      [['create', '-f', manifest], `error: -f ${manifest} is a Kubernetes manifest; give CreateTestInput fields (name, provider, sourceNamespaces, cron, ...) or apply the manifest with kubectl apply -f`],
      [['create', '-f', unknown], `error: -f ${unknown}: unknown field healthChecks (known: name, namespace, provider, backupName, backupSelect, sourceNamespaces, cron, onBackup, everyNthBackup, timezone, namespacePrefix, ttl, networkIsolation, healthCheckPolicy, maxRTO, maxRPO, alertOnExceed, historyLimit, labelSelector, includedResources, restore, logCollection)`],
      [['create', 'other', '-f', named], `error: NAME "other" differs from the name "x" in -f ${named}`],
      [['create', '-f', path.join(dir, 'missing.yaml')], `error: cannot read -f ${path.join(dir, 'missing.yaml')}: ENOENT`],
      [['create', '-f', '-', '-n', 'team-b'], 'error: the namespace "team-a" in -f - differs from -n team-b'],
    ];
    for (const [args, expected] of cases) {
      const result = await runPlugin([...args, '--server', fake.url], { stdin: JSON.stringify(EVERY_FIELD) });
      expect(result).toEqual({ code: 2, stdout: '', stderr: `${expected}\n` });
    }
    expect(fake.requests).toEqual([]);
  });

  it('reads --selector in kubectl\'s syntax and refuses what it cannot read, and an unknown --include-resource', async () => {
    const base = ['create', 'shop', '--provider', 'velero', '--source-namespace', 'shop', '--cron', '@daily', '--server', fake.url];
    expect((await runPlugin([...base, '--selector', 'app==web,env!=prod,tier notin (batch),owner'])).code).toBe(0);
    expect(fake.requests[0]?.body).toMatchObject({
      labelSelector: {
        matchLabels: { app: 'web' },
        matchExpressions: [
          { key: 'env', operator: 'NotIn', values: ['prod'] },
          { key: 'tier', operator: 'NotIn', values: ['batch'] },
          { key: 'owner', operator: 'Exists' },
        ],
      },
    });
    fake.requests.length = 0;
    const cases: [string[], string][] = [
      [['--selector', 'app=web,,tier=x'], 'error: invalid --selector "app=web,,tier=x": cannot read "" (use key=value, key!=value, key in (a,b), key notin (a,b), key or !key)'],
      [['--selector', 'tier in (a,)'], 'error: invalid --selector "tier in (a,)": cannot read "tier in (a,)" (use key=value, key!=value, key in (a,b), key notin (a,b), key or !key)'],
      [['--selector', 'app=a,app=b'], 'error: invalid --selector "app=a,app=b": cannot read "app=b" (use key=value, key!=value, key in (a,b), key notin (a,b), key or !key)'],
      [['--selector', ''], 'error: invalid --selector "": give at least one requirement, e.g. app=web'],
      [['--include-resource', 'widgets.example.com'], 'error: unknown --include-resource "widgets.example.com": use a built-in type such as deployments.apps or services, or give includedResources (group, version, kind, resource) with -f'],
    ];
    for (const [args, expected] of cases) {
      expect(await runPlugin([...base, ...args])).toEqual({ code: 2, stdout: '', stderr: `${expected}\n` });
    }
    expect(fake.requests).toEqual([]);
  });

  it('prints the created TestResponse with -o yaml', async () => {
    const result = await runPlugin(['create', 'payments', ...EVERY_FLAG, '-o', 'yaml', '--server', fake.url]);
    expect(result.stdout).toContain('name: payments\nnamespace: rehearsal-system\nprovider: velero\n');
  });
});

describe('update', () => {
  it('PUTs the whole test to its name and namespace', async () => {
    const result = await runPlugin(['update', 'shop', '-n', 'team-a', '--provider', 'velero', '--source-namespace', 'shop', '--cron', '*/15 * * * *', '--server', fake.url]);
    expect(result).toEqual({ code: 0, stdout: 'restoretest.rehearsal.dev/shop updated\n', stderr: '' });
    expect(fake.calls).toEqual(['PUT /api/v1/tests/shop?namespace=team-a']);
    expect(fake.requests[0]?.body).toEqual({ name: 'shop', namespace: 'team-a', provider: 'velero', sourceNamespaces: ['shop'], cron: '*/15 * * * *' });
  });

  it('sends --max-rpo (an omitted one removes the RPO target, as an omitted --max-rto removes the RTO target)', async () => {
    const result = await runPlugin(['update', 'shop', '-n', 'team-a', '--provider', 'velero', '--source-namespace', 'shop', '--cron', '@daily', '--max-rpo', '6h', '--server', fake.url]);
    expect(result.code).toBe(0);
    expect(fake.requests[0]?.body).toEqual({ name: 'shop', namespace: 'team-a', provider: 'velero', sourceNamespaces: ['shop'], cron: '@daily', maxRPO: '6h' });
  });

  it('sends --random-within as backupSelect randomWithin (issue 32); a bad window or a named backup exits 2 before any call', async () => {
    const base = ['create', 'shop', '--provider', 'velero', '--source-namespace', 'shop', '--cron', '@daily'];
    const result = await runPlugin([...base, '--random-within', '720h', '--server', fake.url]);
    expect(result.code).toBe(0);
    expect(fake.requests[0]?.body).toEqual({
      name: 'shop', provider: 'velero', sourceNamespaces: ['shop'], cron: '@daily', backupSelect: { strategy: 'randomWithin', within: '720h' },
    });
    const refused: [string[], RegExp][] = [
      [['--random-within', '30d'], /invalid --random-within "30d"/],
      [['--random-within', '30m'], /expected a window from 1h to 8784h/],
      [['--random-within', '720h', '--backup', 'nightly'], /drop --backup nightly or use latest/],
    ];
    for (const [flags, message] of refused) {
      const bad = await runPlugin([...base, ...flags, '--server', fake.url]);
      expect([bad.code, bad.stderr]).toEqual([2, expect.stringMatching(message)]);
    }
    expect(fake.requests).toHaveLength(1);
  });

  it('exits 1 with the API\'s words when the test does not exist', async () => {
    const result = await runPlugin(['update', 'ghost', '--provider', 'velero', '--source-namespace', 'shop', '--cron', '@daily', '--server', fake.url]);
    expect(result).toEqual({ code: 1, stdout: '', stderr: 'error: RestoreTest "ghost" not found in namespace "rehearsal-system".\n' });
  });
});

describe('delete', () => {
  it('deletes and confirms like kubectl', async () => {
    expect(await runPlugin(['delete', 'payments', '--server', fake.url])).toEqual({
      code: 0,
      stdout: 'restoretest.rehearsal.dev "payments" deleted\n',
      stderr: '',
    });
    expect((await runPlugin(['delete', 'shop', '-n', 'team-a', '-o', 'name', '--server', fake.url])).stdout).toBe('restoretest.rehearsal.dev/shop\n');
    expect(fake.calls).toEqual(['DELETE /api/v1/tests/payments', 'DELETE /api/v1/tests/shop?namespace=team-a']);
  });
});
