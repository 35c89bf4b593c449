// The coverage page's drafting (web/src/test-drafts.ts, issue 32): which requests a "Generate tests"
// click makes, how their answers join, and the files a user downloads for GitOps, read back with the
// yaml package as `kubectl apply` and kustomize would read them.
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import {
  draftBatches,
  draftFileName,
  draftYaml,
  kustomizationYaml,
  MAX_SOURCE_NAMESPACES,
  mergeDraftAnswers,
  namespacesWithoutTest,
  type NamespaceCoverage,
  type TestDraft,
  type TestDraftsResponse,
} from '../../../web/src/test-drafts.js';

function entry(namespace: string, tests: string[]): NamespaceCoverage {
  return { namespace, status: tests.length ? 'tested' : 'untested', backedUpBy: ['Schedule/nightly'], lastBackupAt: '', window: '24h0m0s', tests, lastPassedAt: '' };
}

function draft(namespace: string, extra: Partial<TestDraft> = {}): TestDraft {
  return {
    namespace,
    test: {
      apiVersion: 'rehearsal.dev/v1alpha1',
      kind: 'RestoreTest',
      metadata: { name: `${namespace}-restore`, namespace: 'rehearsal-system', annotations: { 'rehearsal.dev/generated-from': namespace } },
      spec: {
        provider: 'velero',
        backupSource: { backupName: 'latest', namespaces: [{ name: namespace }] },
        schedule: { cron: '0 2 * * *', timezone: 'UTC' },
      } as TestDraft['test']['spec'],
    },
    notes: [],
    todo: [],
    ...extra,
  };
}

function answer(drafts: TestDraft[], skipped: TestDraftsResponse['skipped'] = []): TestDraftsResponse {
  return { generatedAt: '2026-12-07T06:00:00.000Z', testNamespace: 'rehearsal-system', drafts, skipped };
}

describe('namespacesWithoutTest', () => {
  it('lists the backed-up namespaces no RestoreTest restores, in the order of the answer', () => {
    const coverage = { namespaces: [entry('shop', []), entry('orders', ['rehearsal-system/orders-daily']), entry('ledger', [])] };
    expect(namespacesWithoutTest(coverage)).toEqual(['shop', 'ledger']);
  });
});

describe('draftBatches', () => {
  const withoutTest = ['a', 'b', 'c'];
  it('asks for nothing when nothing is selected', () => {
    expect(draftBatches(new Set(), withoutTest)).toEqual([]);
    expect(draftBatches(new Set(['gone']), withoutTest)).toEqual([]);
  });
  it("names every namespace even when all are selected (the server's default is not limited to what the page listed)", () => {
    expect(draftBatches(new Set(withoutTest), withoutTest)).toEqual([['a', 'b', 'c']]);
  });
  it('names the selection in the order listed, dropping what the list no longer shows', () => {
    expect(draftBatches(new Set(['c', 'a', 'gone']), withoutTest)).toEqual([['a', 'c']]);
  });
  it(`splits a selection over ${MAX_SOURCE_NAMESPACES} namespaces into requests the API accepts`, () => {
    const many = Array.from({ length: 250 }, (_, index) => `ns-${index}`);
    const batches = draftBatches(new Set(many.slice(0, 230)), many);
    expect(batches.map((batch) => batch.length)).toEqual([100, 100, 30]);
    expect(batches.flat()).toEqual(many.slice(0, 230));
  });
});

describe('mergeDraftAnswers', () => {
  it('joins the drafts and skipped namespaces of several requests, each namespace once', () => {
    const forbidden = { namespace: 'secret', reason: 'forbidden' as const, message: 'no', missingPermissions: [{ verb: 'list', group: 'apps', resource: 'deployments', namespace: 'secret' }] };
    const merged = mergeDraftAnswers([answer([draft('a'), draft('b')], [forbidden]), answer([draft('b'), draft('c')], [forbidden])]);
    expect(merged.drafts.map((d) => d.namespace)).toEqual(['a', 'b', 'c']);
    expect(merged.skipped).toEqual([forbidden]);
    expect(merged.testNamespace).toBe('rehearsal-system');
  });
});

describe('the files of the drafts', () => {
  it('names each file after its test, as generate --output-dir does', () => {
    expect(draftFileName(draft('shop'))).toBe('shop-restore.yaml');
  });

  it("uses the server's YAML when it sent one", () => {
    expect(draftYaml(draft('shop', { yaml: '# from the server\nkind: RestoreTest\n' }))).toBe('# from the server\nkind: RestoreTest\n');
  });

  it('without it, writes the test with its notes and TODO marks as comments, reading back as the test', () => {
    const todo = 'check db-query: write sqlQuery.query and its expectation';
    const shop = draft('shop', { notes: ['podsReady per Deployment'], todo: [todo] });
    const yaml = draftYaml(shop);
    expect(yaml.split('\n').slice(0, 2)).toEqual(['# podsReady per Deployment', `# TODO ${todo}`]);
    expect(parse(yaml)).toEqual(shop.test);
  });

  it('lists the files in a kustomization.yaml, sorted and each once', () => {
    expect(parse(kustomizationYaml(['shop-restore.yaml', 'a-restore.yaml', 'shop-restore.yaml']))).toEqual({
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      resources: ['a-restore.yaml', 'shop-restore.yaml'],
    });
  });
});
