// Every table of kubectl restoretest, and -o wide / -o name, against golden files (fixed clock:
// 2026-03-15T12:00:00Z); -o json / -o yaml parse back to exactly the API's objects.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { parse as parseYaml } from 'yaml';
import { FakeApi, fixture } from './support/fake-api.js';
import { expectGolden } from './support/golden.js';
import { runPlugin } from './support/run-plugin.js';

let fake: FakeApi;

beforeAll(async () => {
  fake = await FakeApi.start();
});

afterAll(async () => {
  await fake.close();
});

afterEach(() => {
  // Every canned answer the plugin saw conforms to openapi/openapi.json.
  expect(fake.problems).toEqual([]);
});

function connection(): string[] {
  return ['--server', fake.url, '--token', 'unit-test-token'];
}

const TABLES: readonly (readonly [string, readonly string[]])[] = [
  ['list', ['list']],
  ['list-team-a', ['list', '-n', 'team-a']],
  ['list-all-namespaces', ['list', '-A']],
  ['list-wide', ['list', '-A', '-o', 'wide']],
  ['list-name', ['list', '-o', 'name']],
  ['get', ['get', 'payments']],
  ['get-wide', ['get', 'shop', '-n', 'team-a', '-o', 'wide']],
  ['get-name', ['get', 'orders', '-o', 'name']],
  ['reports', ['reports']],
  ['reports-all-namespaces', ['reports', '-A']],
  ['reports-wide', ['reports', '-A', '-o', 'wide']],
  ['reports-name', ['reports', '-A', '-o', 'name']],
  ['reports-latest', ['reports', 'payments', '--latest']],
  ['summary', ['summary']],
  ['summary-wide', ['summary', '-o', 'wide']],
  ['daily', ['daily', '--days', '7']],
  ['daily-wide', ['daily', '--days', '7', '-o', 'wide']],
  ['alerts', ['alerts']],
  ['alerts-all-namespaces', ['alerts', '-A']],
  ['alerts-wide', ['alerts', '-A', '-o', 'wide']],
  ['alerts-name', ['alerts', '-A', '-o', 'name']],
  ['upcoming', ['upcoming']],
  ['upcoming-all-namespaces', ['upcoming', '-A']],
  ['upcoming-wide', ['upcoming', '-A', '-o', 'wide']],
  ['upcoming-name', ['upcoming', '-A', '-o', 'name']],
  ['schedules', ['schedules']],
  ['schedules-wide', ['schedules', '-o', 'wide']],
  ['schedules-name', ['schedules', '-o', 'name']],
  ['coverage', ['coverage']],
  ['coverage-wide', ['coverage', '-o', 'wide']],
  ['coverage-untested-name', ['coverage', '--untested', '-o', 'name']],
  ['sandboxes', ['sandboxes']],
  ['sandboxes-wide', ['sandboxes', '--orphaned', '-o', 'wide']],
  ['sandboxes-name', ['sandboxes', '-o', 'name']],
  ['diagnose', ['diagnose', 'payments', '--run', 'k3m9x2']],
  ['compliance', ['compliance', '--framework', 'soc2']],
  ['compliance-wide', ['compliance', '--framework', 'soc2', '--period', '90', '-o', 'wide']],
  ['version', ['version']],
];

describe('tables (golden files)', () => {
  it.each(TABLES)('%s', async (golden, args) => {
    const result = await runPlugin([...args, ...connection()]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expectGolden(golden, `$ kubectl restoretest ${args.join(' ')}\n${result.stdout}`);
  });

  it('says "No resources found" on stderr for an empty namespace, like kubectl', async () => {
    const result = await runPlugin(['list', '-n', 'nobody-here', ...connection()]);
    expect(result).toEqual({ code: 0, stdout: '', stderr: 'No resources found in nobody-here namespace.\n' });
    const all = await runPlugin(['reports', 'inventory', '--latest', ...connection()]);
    expect(all).toEqual({ code: 0, stdout: '', stderr: 'No resources found in rehearsal-system namespace.\n' });
  });

  it('asks the server for the namespace, and notes on stderr the namespaces -A left out (issue 30)', async () => {
    fake.requests.length = 0;
    await runPlugin(['list', '-n', 'team-a', ...connection()]);
    expect(fake.calls).toEqual(['GET /api/v1/tests?namespace=team-a']);
    fake.omittedHeaders = { 'Rehearsal-Omitted-Namespaces': '2' };
    try {
      const counted = await runPlugin(['list', '-A', '-o', 'name', ...connection()]);
      expect(counted.code).toBe(0);
      expect(counted.stdout).not.toBe('');
      expect(counted.stderr).toBe('warning: 2 namespaces left out: you may not list restoretests.rehearsal.dev there\n');
      fake.omittedHeaders = { 'Rehearsal-Omitted-Namespaces': '1', 'Rehearsal-Omitted-Namespace-Names': 'team-b' };
      fake.reportPageSize = 2;
      const named = await runPlugin(['reports', '-A', '-o', 'name', ...connection()]);
      expect(named.stderr).toBe('warning: 1 namespace (team-b) left out: you may not list restorereports.rehearsal.dev there\n');
    } finally {
      fake.omittedHeaders = {};
      fake.reportPageSize = 500;
    }
  });

  it('follows the Link rel="next" pages of reports to the end', async () => {
    const whole = await runPlugin(['reports', '-A', '-o', 'name', ...connection()]);
    expect(whole.stdout.split('\n').filter(Boolean)).toHaveLength(fake.reports.length);
    fake.reportPageSize = 2;
    fake.requests.length = 0;
    try {
      const paged = await runPlugin(['reports', '-A', '-o', 'name', ...connection()]);
      expect(paged).toEqual(whole);
    } finally {
      fake.reportPageSize = 500;
    }
    const pages = Math.ceil(fake.reports.length / 2);
    expect(pages).toBeGreaterThan(1);
    expect(fake.calls).toEqual([
      'GET /api/v1/reports',
      ...Array.from({ length: pages - 1 }, (_, page) => `GET /api/v1/reports?continue=${(page + 1) * 2}`),
    ]);
  });

  it('sends the query each command stands for', async () => {
    fake.requests.length = 0;
    await runPlugin(['reports', 'payments', '--days', '90', '--latest', '-n', 'team-a', ...connection()]);
    await runPlugin(['reports', '-A', ...connection()]);
    await runPlugin(['reports', ...connection()]);
    await runPlugin(['daily', '--days', '14', ...connection()]);
    await runPlugin(['alerts', '--hours', '72', ...connection()]);
    await runPlugin(['compliance', '--framework', 'dora', '--period', '30', ...connection()]);
    await runPlugin(['get', 'payments', ...connection()]);
    await runPlugin(['get', 'shop', '-n', 'team-a', ...connection()]);
    await runPlugin(['diagnose', 'shop', '-n', 'team-a', '--run', 'k3m9x2', ...connection()]);
    expect(fake.calls).toEqual([
      'GET /api/v1/reports?test=payments&namespace=team-a&days=90&latest=true',
      'GET /api/v1/reports',
      'GET /api/v1/reports?namespace=rehearsal-system',
      'GET /api/v1/summary/daily?days=14',
      'GET /api/v1/alerts?hours=72',
      'GET /api/v1/compliance?framework=dora&period=30',
      // No -n and no kubeconfig context: the API applies the server's namespace.
      'GET /api/v1/tests/payments',
      'GET /api/v1/tests/shop?namespace=team-a',
      'GET /api/v1/tests/shop/diagnosis?namespace=team-a&run=k3m9x2',
    ]);
    expect(fake.requests.every((request) => request.headers.authorization === 'Bearer unit-test-token')).toBe(true);
  });
});

describe('-o json and -o yaml are the API objects', () => {
  const tests = fixture<{ namespace: string }[]>('tests');
  const reports = fixture<{ metadata: { namespace: string }; spec: { completedAt: string } }[]>('reports');
  const newestFirst = [...reports].sort((a, b) => b.spec.completedAt.localeCompare(a.spec.completedAt));
  const cases: readonly (readonly [readonly string[], unknown])[] = [
    [['list', '-A'], tests],
    [['list', '-n', 'team-a'], tests.filter((test) => test.namespace === 'team-a')],
    [['get', 'payments'], tests.find((test) => (test as { name?: string }).name === 'payments')],
    [['reports', '-A'], newestFirst],
    [['summary'], fixture('summary')],
    [['daily'], fixture('daily')],
    [['alerts', '-A'], fixture('alerts')],
    [['upcoming', '-A'], fixture('upcoming')],
    [['schedules'], fixture('schedules')],
    [['sandboxes'], fixture('sandboxes')],
    [['coverage'], fixture('coverage')],
    [['diagnose', 'payments'], fixture('diagnosis')],
    [['compliance', '--framework', 'soc2', '--period', '90'], fixture('compliance-soc2')],
  ];

  it.each(cases)('%j', async (args, expected) => {
    const json = await runPlugin([...args, '-o', 'json', ...connection()]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(expected);
    const yaml = await runPlugin([...args, '-o', 'yaml', ...connection()]);
    expect(yaml.code).toBe(0);
    expect(parseYaml(yaml.stdout)).toEqual(expected);
  });

  it('prints version as an object', async () => {
    const result = await runPlugin(['version', '-o', 'json', ...connection()]);
    expect(JSON.parse(result.stdout)).toEqual({ clientVersion: '0.1.0', serverVersion: '0.1.0' });
  });
});

describe('colour', () => {
  it('paints result words on a terminal only, and never with NO_COLOR', async () => {
    const tty = await runPlugin(['list', '-A', ...connection()], { stdoutIsTTY: true });
    expect(tty.stdout).toContain('\u001b[32mpass\u001b[0m');
    expect(tty.stdout).toContain('\u001b[31mfail\u001b[0m');
    expect(tty.stdout).toContain('\u001b[33mpartial\u001b[0m');
    // Columns stay aligned: colour codes take no width.
    const plain = await runPlugin(['list', '-A', ...connection()]);
    // eslint-disable-next-line no-control-regex
    expect(tty.stdout.replace(/\u001b\[[0-9;]*m/g, '')).toBe(plain.stdout);
    const noColor = await runPlugin(['list', '-A', ...connection()], { stdoutIsTTY: true, env: { NO_COLOR: '1' } });
    expect(noColor.stdout).toBe(plain.stdout);
    const dumb = await runPlugin(['list', '-A', ...connection()], { stdoutIsTTY: true, env: { TERM: 'dumb' } });
    expect(dumb.stdout).toBe(plain.stdout);
  });
});
