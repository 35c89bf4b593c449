// The informer caches seen through a namespace scope (issue 30): the tests and the report index a
// tenant's lists and aggregates are computed from. Every namespace is the cache itself, at no
// cost. A narrower scope gets its own small report index, built from the runs of the tests in its
// namespaces (O(their runs), not O(all reports)) and kept while the cache's index is unchanged,
// so a tenant's dashboard polling summary, daily and alerts builds it once per change.
import { ReportIndex } from '../../domain/read-models/report-index.js';
import type { RestoreTest } from '../../domain/resources/resources.js';
import { inScope, namespaceOfKey, scopeKey, type NamespaceScope } from '../auth/namespace-scope.js';
import type { ApiCache } from '../ports.js';

/** Scoped indexes kept at once (one per distinct set of namespaces recently asked for). */
const MAX_SCOPED_INDEXES = 32;

export class ScopedReads {
  private readonly indexes = new Map<string, { version: number; index: ReportIndex }>();

  constructor(private readonly cache: ApiCache) {}

  tests(scope: NamespaceScope): RestoreTest[] {
    const tests = this.cache.listTests();
    return scope.kind === 'all' ? tests : tests.filter((test) => inScope(scope, test.metadata.namespace));
  }

  reportIndex(scope: NamespaceScope): ReportIndex {
    const index = this.cache.reportIndex;
    if (scope.kind === 'all') return index;
    const key = scopeKey(scope);
    const kept = this.indexes.get(key);
    if (kept && kept.version === index.version) return kept.index;
    const summaries = [];
    for (const testKey of index.testKeysWithRuns()) {
      if (!inScope(scope, namespaceOfKey(testKey))) continue;
      for (const run of index.runsOfTest(testKey)) if (inScope(scope, namespaceOfKey(run.key))) summaries.push(run.report);
    }
    const scoped = ReportIndex.from(summaries);
    this.indexes.delete(key);
    this.indexes.set(key, { version: index.version, index: scoped });
    if (this.indexes.size > MAX_SCOPED_INDEXES) this.indexes.delete(this.indexes.keys().next().value!);
    return scoped;
  }
}

/**
 * The namespaces holding RestoreTests or RestoreReports: the only ones a list can show, so the
 * only ones whose read rights are reviewed (readable-namespaces.ts). Recomputed when the cache
 * changes, O(tests).
 */
export function namespacesWithObjects(cache: ApiCache): () => readonly string[] {
  let kept: { version: string; namespaces: string[] } | undefined;
  return () => {
    if (!cache.synced) return [];
    if (kept?.version === cache.version) return kept.namespaces;
    const namespaces = new Set<string>();
    for (const test of cache.listTests()) if (test.metadata.namespace) namespaces.add(test.metadata.namespace);
    for (const testKey of cache.reportIndex.testKeysWithRuns()) namespaces.add(namespaceOfKey(testKey));
    kept = { version: cache.version, namespaces: [...namespaces] };
    return kept.namespaces;
  };
}
