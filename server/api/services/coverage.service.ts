// Backed-up namespaces and whether a passing restore test covers them (issue 16). No backup tool
// that can list its backups, or the tool unreachable → 503 backup-tool-unavailable. A caller who
// reads only some namespaces sees theirs (issue 30).
import { coverageWithin, untestedNamespaces, type CoverageResponse } from '../../domain/read-models/coverage.js';
import { ALL_NAMESPACES, inScope, type NamespaceScope } from '../auth/namespace-scope.js';
import { BackupToolUnavailableError, type ApiCache, type CoverageSource } from '../ports.js';
import { requireSynced } from './readiness.js';

export class CoverageService {
  constructor(
    private readonly cache: ApiCache,
    private readonly source: CoverageSource | undefined,
  ) {}

  async coverage(scope: NamespaceScope = ALL_NAMESPACES): Promise<CoverageResponse> {
    requireSynced(this.cache);
    if (!this.source) {
      throw new BackupToolUnavailableError('No backup tool that lists its backups (Velero, Kasten or Trilio, REHEARSAL_BACKUP_TOOL) is configured on this server.');
    }
    const coverage = await this.source.coverage();
    return scope.kind === 'all' ? coverage : coverageWithin(coverage, (namespace) => inScope(scope, namespace));
  }

  /** Backed-up namespaces in the scope without a passing test in their window; undefined while unknown. */
  untestedCount(scope: NamespaceScope = ALL_NAMESPACES): number | undefined {
    const latest = this.source?.latest();
    if (!latest || scope.kind === 'all') return latest?.untested;
    return coverageWithin(latest, (namespace) => inScope(scope, namespace)).untested;
  }

  /** Their names (compliance names them as a gap); undefined while unknown. */
  untestedNamespaces(): string[] | undefined {
    const latest = this.source?.latest();
    return latest && untestedNamespaces(latest);
  }
}
