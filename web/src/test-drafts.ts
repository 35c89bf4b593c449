// The coverage page's drafting (issue 32), without the page: which namespaces a "Generate tests"
// click asks GET /api/v1/test-drafts for, in how many requests, how the answers join, and the files
// a user downloads for GitOps (one per test, as `kubectl restoretest generate --output-dir` writes
// them, and a kustomization.yaml listing them). Pure: test/unit/web/test-drafts.test.ts.
import type { components } from '../../openapi/client.js';
import { toYaml } from './export.js';

export type CoverageResponse = components['schemas']['CoverageResponse'];
export type NamespaceCoverage = components['schemas']['NamespaceCoverage'];
export type TestDraftsResponse = components['schemas']['TestDraftsResponse'];
export type TestDraft = components['schemas']['TestDraftView'];

/** The API's limit on sourceNamespace per request (MAX_REQUESTED_NAMESPACES on the server). */
export const MAX_SOURCE_NAMESPACES = 100;

/** Backed-up namespaces no RestoreTest restores: what the server drafts for when asked for none. */
export function namespacesWithoutTest(coverage: Pick<CoverageResponse, 'namespaces'>): string[] {
  return coverage.namespaces.filter((entry) => entry.tests.length === 0).map((entry) => entry.namespace);
}

/**
 * The sourceNamespace lists of the requests for a selection: the selected namespaces in the order
 * listed, at most MAX_SOURCE_NAMESPACES a request; none for an empty selection. Always named, even
 * when all are selected: the server's default ("every namespace without a test") is not limited to
 * the namespaces this caller's coverage lists, so it could draft, or skip, namespaces the page never showed.
 */
export function draftBatches(selected: ReadonlySet<string>, withoutTest: readonly string[], size = MAX_SOURCE_NAMESPACES): string[][] {
  // Selected rows the list no longer shows are dropped rather than sent.
  const chosen = withoutTest.filter((namespace) => selected.has(namespace));
  const batches: string[][] = [];
  for (let start = 0; start < chosen.length; start += size) batches.push(chosen.slice(start, start + size));
  return batches;
}

/** One answer of several requests: their drafts and skipped namespaces, each namespace once. */
export function mergeDraftAnswers(answers: readonly TestDraftsResponse[]): TestDraftsResponse {
  const drafts = new Map<string, TestDraft>();
  const skipped = new Map<string, TestDraftsResponse['skipped'][number]>();
  for (const answer of answers) {
    for (const draft of answer.drafts) drafts.set(draft.namespace, draft);
    for (const entry of answer.skipped) skipped.set(entry.namespace, entry);
  }
  return {
    generatedAt: answers.at(-1)?.generatedAt ?? '',
    testNamespace: answers[0]?.testNamespace ?? '',
    drafts: [...drafts.values()],
    skipped: [...skipped.values()],
  };
}

/** The file of one draft: its test's name, as the plugin's --output-dir names it. */
export function draftFileName(draft: Pick<TestDraft, 'test'>): string {
  return `${draft.test.metadata.name}.yaml`;
}

/** The draft as YAML: the server's (notes and TODOs as comments), else the test written here. */
export function draftYaml(draft: Pick<TestDraft, 'test' | 'yaml' | 'notes' | 'todo'>): string {
  if (draft.yaml) return draft.yaml;
  const comments = [...draft.notes.map((note) => `# ${note}`), ...draft.todo.map((line) => `# TODO ${line}`)].map((line) => line.replace(/\n/g, ' '));
  return `${comments.map((line) => `${line}\n`).join('')}${toYaml(draft.test)}`;
}

/** A kustomization.yaml listing the files, so `kubectl apply -k` takes the folder they are saved in. */
export function kustomizationYaml(files: readonly string[]): string {
  return toYaml({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: [...new Set(files)].sort() });
}
