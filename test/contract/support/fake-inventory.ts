// The backup tool's inventory for the contract tests: what Velero would list, kept in memory, read
// through the real CoverageTracker (so the API answers what the server would compute).
import pino from 'pino';
import { Gauge, Registry } from 'prom-client';
import { BackupToolUnavailableError, type CoverageSource } from '../../../server/api/ports.js';
import { CoverageTracker } from '../../../server/inventory/coverage-tracker.js';
import type { BackupInventory } from '../../../server/domain/read-models/coverage.js';
import type { FakeCluster } from './fake-cluster.js';
import type { WorkloadSource } from '../../../server/api/ports.js';
import type { NamespaceFacts } from '../../../server/domain/test-drafts/namespace-facts.js';
import { KubeError } from '../../../server/kube/errors.js';
import type { Provider } from '../../../server/domain/resources/resources.js';

/** What each source namespace runs (GET /api/v1/test-drafts); a namespace not set reads as empty. */
export class FakeWorkloads implements WorkloadSource {
  /** The server's backup tool (REHEARSAL_BACKUP_TOOL): the drafts restore from it. */
  constructor(readonly provider: Provider = 'velero') {}
  readonly facts = new Map<string, Omit<NamespaceFacts, 'namespace'>>();
  /** Namespaces whose reads fail as the apiserver would refuse the server's own account. */
  readonly forbidden = new Set<string>();
  readonly reads: string[] = [];

  async readNamespace(namespace: string): Promise<NamespaceFacts> {
    this.reads.push(namespace);
    if (this.forbidden.has(namespace)) throw new KubeError('Forbidden', 403, `deployments.apps is forbidden in ${namespace}`);
    return { namespace, ...(this.facts.get(namespace) ?? { workloads: [], services: [] }) };
  }
}

export class FakeInventory {
  available = true;
  inventory: BackupInventory = {
    schedules: [
      {
        name: 'nightly',
        cron: '0 1 * * *',
        paused: false,
        includedNamespaces: ['payments', 'shop', 'ledger'],
        excludedNamespaces: [],
        lastBackup: '2026-03-15T01:04:10Z',
      },
    ],
    backups: [
      {
        name: 'manual-1',
        includedNamespaces: ['archive'],
        excludedNamespaces: [],
        completedAt: '2026-03-10T08:00:00Z',
      },
    ],
    clusterNamespaces: [],
  };

  async read(): Promise<BackupInventory> {
    if (!this.available) {
      throw new BackupToolUnavailableError('Velero API backups.velero.io/v1 in namespace velero is unavailable');
    }
    return this.inventory;
  }
}

export function coverageSourceOver(
  cluster: FakeCluster,
  inventory: Pick<FakeInventory, 'read'>,
  now: () => Date,
): CoverageSource {
  const tracker = new CoverageTracker({
    readInventory: () => inventory.read(),
    cache: cluster,
    now,
    minimumWindowSeconds: 86_400,
    // Every request reads the fake again, so a test can change it between requests.
    maxInventoryAgeMs: 0,
    untestedGauge: new Gauge({ name: 'untested', help: 'x', labelNames: ['namespace'], registers: [new Registry()] }),
    log: pino({ level: 'silent' }),
  });
  return { coverage: () => tracker.coverage(), latest: () => tracker.latest(), withInventory: () => tracker.withInventory() };
}
