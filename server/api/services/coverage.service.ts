// Backed-up namespaces and whether a passing restore test covers them (issue 16). No backup tool
// that can list its backups, or the tool unreachable → 503 backup-tool-unavailable.
import { untestedNamespaces, type CoverageResponse } from '../../domain/read-models/coverage.js';
import { BackupToolUnavailableError, type ApiCache, type CoverageSource } from '../ports.js';
import { requireSynced } from './readiness.js';

export class CoverageService {
  constructor(
    private readonly cache: ApiCache,
    private readonly source: CoverageSource | undefined,
  ) {}

  async coverage(): Promise<CoverageResponse> {
    requireSynced(this.cache);
    if (!this.source) {
      throw new BackupToolUnavailableError('No backup tool that lists its backups (Velero) is configured on this server.');
    }
    return this.source.coverage();
  }

  /** Backed-up namespaces without a passing test in their window; undefined while unknown. */
  untestedCount(): number | undefined {
    return this.source?.latest()?.untested;
  }

  /** Their names (compliance names them as a gap); undefined while unknown. */
  untestedNamespaces(): string[] | undefined {
    const latest = this.source?.latest();
    return latest && untestedNamespaces(latest);
  }
}
