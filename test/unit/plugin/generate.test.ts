// kubectl restoretest generate (issue 32) against the fake API serving a draft answer the real
// service wrote (test/fixtures/plugin/api/test-drafts.json): YAML documents by default (golden),
// one file per test and a kustomization.yaml with --output-dir, creation through the API only with
// --apply, and the query each flag stands for.
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { parseAllDocuments, parse } from 'yaml';
import { FakeApi, fixture, problem, type Reply } from './support/fake-api.js';
import { expectGolden } from './support/golden.js';
import { runPlugin } from './support/run-plugin.js';
import type { components } from '../../../openapi/client.js';
import { draftRestoreTest } from '../../../server/domain/test-drafts/test-draft.js';
import { draftYaml } from '../../../server/api/services/test-drafts.service.js';

type Drafts = components['schemas']['TestDraftsResponse'];
const DRAFTS = fixture<Drafts>('test-drafts');

let fake: FakeApi;

beforeAll(async () => {
  fake = await FakeApi.start();
});

afterAll(async () => {
  await fake.close();
});

beforeEach(() => {
  fake.requests.length = 0;
  fake.on('GET', '/api/v1/test-drafts', { status: 200, body: DRAFTS });
});

afterEach(() => {
  expect(fake.problems).toEqual([]);
});

function connection(): string[] {
  return ['--server', fake.url, '--token', 'unit-test-token'];
}

function created(name: string, sourceNamespace: string, namespace = 'rehearsal-system'): Reply {
  return {
    status: 201,
    headers: { location: `/api/v1/tests/${name}?namespace=${namespace}` },
    body: {
      name,
      namespace,
      provider: 'velero',
      schedule: '0 2 * * *',
      phase: 'Idle',
      lastScore: 0,
      lastResult: '',
      lastRunAt: '',
      nextRunAt: '2026-03-16T02:00:00Z',
      sourceNamespaces: [sourceNamespace],
      rtoTarget: '',
    },
  };
}

const posts = (): string[] => fake.calls.filter((call) => call.startsWith('POST'));

describe('generate', () => {
  it('prints the drafts as YAML documents, warns of what it skipped, and creates nothing', async () => {
    const result = await runPlugin(['generate', ...connection()]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('warning: namespace ledger skipped (unreadable): The server could not list the workloads of "ledger" (Forbidden); see the server log.\n');
    expectGolden('generate', `$ kubectl restoretest generate\n${result.stdout}`);
    const documents = parseAllDocuments(result.stdout).map((document) => document.toJS());
    expect(documents).toEqual(DRAFTS.drafts.map((draft) => draft.test));
    expect(fake.calls).toEqual(['GET /api/v1/test-drafts?yaml=true']);
  });

  it('sends the source namespaces and the test namespace asked for', async () => {
    await runPlugin(['generate', '--source-namespace', 'shop', '--source-namespace', 'orders,shop', '-n', 'team-a', '-o', 'name', ...connection()]);
    expect(fake.calls).toEqual(['GET /api/v1/test-drafts?namespace=team-a&yaml=true&sourceNamespace=shop&sourceNamespace=orders']);
  });

  it('-o name lists the drafted tests; -o json is the API answer', async () => {
    const names = await runPlugin(['generate', '-o', 'name', ...connection()]);
    expect(names.stdout).toBe('restoretest.rehearsal.dev/archive-restore\nrestoretest.rehearsal.dev/payments-restore\nrestoretest.rehearsal.dev/shop-restore\n');
    const json = await runPlugin(['generate', '-o', 'json', ...connection()]);
    expect(JSON.parse(json.stdout)).toEqual(DRAFTS);
  });

  it('refuses a malformed --source-namespace, and --apply with --output-dir, before any request', async () => {
    const bad = await runPlugin(['generate', '--source-namespace', 'Not_A_Name', ...connection()]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: .*--source-namespace/);
    const both = await runPlugin(['generate', '--apply', '--output-dir', '/tmp/x', ...connection()]);
    expect(both.code).toBe(2);
    expect(fake.calls).toEqual([]);
  });

  it('says so when no backed-up namespace lacks a test', async () => {
    fake.on('GET', '/api/v1/test-drafts', { status: 200, body: { ...DRAFTS, drafts: [], skipped: [] } });
    const result = await runPlugin(['generate', ...connection()]);
    expect(result).toEqual({ code: 0, stdout: '', stderr: 'No backed-up namespace without a test found\n' });
  });
});

describe('generate --output-dir', () => {
  it('writes one file per test and a kustomization.yaml listing them; never overwrites a file, merges the kustomization', async () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'rh-generate-'));
    writeFileSync(path.join(directory, 'shop-restore.yaml'), '# completed by hand\n');
    writeFileSync(path.join(directory, 'kustomization.yaml'), 'resources:\n  - older-restore.yaml\nnamespace: team-a\n');
    const result = await runPlugin(['generate', '--output-dir', directory, ...connection()]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [`${directory}/archive-restore.yaml written`, `${directory}/payments-restore.yaml written`, `${directory}/kustomization.yaml written`, ''].join('\n'),
    );
    expect(result.stderr).toContain(`warning: ${directory}/shop-restore.yaml exists, not overwritten\n`);
    expect(readFileSync(path.join(directory, 'shop-restore.yaml'), 'utf8')).toBe('# completed by hand\n');
    expect(readdirSync(directory).sort()).toEqual(['archive-restore.yaml', 'kustomization.yaml', 'payments-restore.yaml', 'shop-restore.yaml']);
    expect(parse(readFileSync(path.join(directory, 'archive-restore.yaml'), 'utf8'))).toEqual(DRAFTS.drafts[0]!.test);
    expect(parse(readFileSync(path.join(directory, 'kustomization.yaml'), 'utf8'))).toEqual({
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      namespace: 'team-a',
      resources: ['archive-restore.yaml', 'older-restore.yaml', 'payments-restore.yaml', 'shop-restore.yaml'],
    });
    expect(posts()).toEqual([]);
  });

  it('creates the directory when it does not exist', async () => {
    const directory = path.join(mkdtempSync(path.join(tmpdir(), 'rh-generate-')), 'new', 'dir');
    const result = await runPlugin(['generate', '--output-dir', directory, '-o', 'name', ...connection()]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('restoretest.rehearsal.dev/archive-restore\nrestoretest.rehearsal.dev/payments-restore\nrestoretest.rehearsal.dev/shop-restore\n');
    expect(result.stderr).toContain('warning: restoretest.rehearsal.dev/shop-restore needs completing: check db-data: write sqlQuery.query');
    expect(existsSync(path.join(directory, 'kustomization.yaml'))).toBe(true);
  });
});

describe('generate --apply', () => {
  it('creates each drafted test through the API; one refusal does not stop the others (exit 1)', async () => {
    fake.on('POST', '/api/v1/test-drafts/archive', created('archive-restore', 'archive'));
    fake.on('POST', '/api/v1/test-drafts/payments', problem(409, 'already-exists', 'Already exists', 'RestoreTest "payments-restore" already exists in namespace "rehearsal-system".'));
    fake.on('POST', '/api/v1/test-drafts/shop', created('shop-restore', 'shop'));
    const result = await runPlugin(['generate', '--apply', ...connection()]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('restoretest.rehearsal.dev/archive-restore created\nrestoretest.rehearsal.dev/shop-restore created\n');
    expect(result.stderr).toContain('error: payments: ');
    expect(result.stderr).toContain('already exists');
    expect(result.stderr).toContain('warning: restoretest.rehearsal.dev/shop-restore needs completing');
    expect(posts()).toEqual(['POST /api/v1/test-drafts/archive', 'POST /api/v1/test-drafts/payments', 'POST /api/v1/test-drafts/shop']);
  });

  it('creates them in the namespace of -n', async () => {
    fake.on('POST', /^\/api\/v1\/test-drafts\/([^/]+)$/, (request, match) => created(`${match[1]}-restore`, match[1]!, request.query.get('namespace') ?? 'rehearsal-system'));
    const result = await runPlugin(['generate', '--apply', '-n', 'team-a', '--source-namespace', 'shop', '-o', 'name', ...connection()]);
    expect(result.code).toBe(0);
    expect(posts()).toEqual(['POST /api/v1/test-drafts/archive?namespace=team-a', 'POST /api/v1/test-drafts/payments?namespace=team-a', 'POST /api/v1/test-drafts/shop?namespace=team-a']);
  });
});

describe('generate with a Kasten or Trilio server (issue 32)', () => {
  it('writes the kasten draft the server made as it is, its notes (the Policy, the assumed cadence) as comments: no change in the plugin', async () => {
    // What the service answers for a namespace a Kasten Policy backs up (test-drafts.service.ts).
    const draft = draftRestoreTest(
      { namespace: 'shop', workloads: [], services: [] },
      {
        provider: 'kasten',
        backedUpBy: ['Policy/kasten-io/shop-hourly'],
        schedule: { kind: 'Policy', name: 'kasten-io/shop-hourly', cron: '0 * * * *', note: 'Kasten Policy kasten-io/shop-hourly (@hourly) gives no subFrequency minutes' },
      },
      { testNamespace: 'rehearsal-system', now: new Date('2026-03-15T12:00:00Z') },
    );
    const answer: Drafts = {
      generatedAt: '2026-03-15T12:00:00.000Z',
      testNamespace: 'rehearsal-system',
      drafts: [{ namespace: 'shop', test: draft.test as Drafts['drafts'][number]['test'], notes: draft.notes, todo: draft.todo, yaml: draftYaml(draft) }],
      skipped: [],
    };
    fake.on('GET', '/api/v1/test-drafts', { status: 200, body: answer });
    const directory = mkdtempSync(path.join(tmpdir(), 'rh-generate-kasten-'));
    const result = await runPlugin(['generate', '--output-dir', directory, ...connection()]);
    expect(result.code).toBe(0);
    const written = readFileSync(path.join(directory, 'shop-restore.yaml'), 'utf8');
    expect(written).toMatch(/^# backed up by kasten Policy kasten-io\/shop-hourly \(0 \* \* \* \*\); runs daily at 00:00 UTC/);
    expect(written).toContain('# Kasten Policy kasten-io/shop-hourly (@hourly) gives no subFrequency minutes');
    expect(parse(written)).toMatchObject({ spec: { provider: 'kasten', schedule: { cron: '0 0 * * *' } } });
  });
});
