// The dashboard's read models (decision 0005), computed by domain functions over the cache, seen
// through the caller's namespace scope (issue 30: a tenant's figures cover their namespaces).
import { alerts, daily, summary, upcoming } from '../../domain/read-models/aggregates.js';
import type { Alert, DailySummary, Summary, UpcomingTest } from '../../domain/read-models/views.js';
import { ALL_NAMESPACES, type NamespaceScope } from '../auth/namespace-scope.js';
import type { ApiCache } from '../ports.js';
import { requireSynced } from './readiness.js';
import { alertThresholds, BUILT_IN_CLUSTER_DEFAULTS, type AlertThresholds, type ClusterDefaults } from '../../domain/run/cluster-defaults.js';
import { ScopedReads } from './scoped-reads.js';

export class DashboardService {
  private readonly reads: ScopedReads;

  constructor(
    private readonly cache: ApiCache,
    private readonly now: () => Date,
    /** Backed-up namespaces in the scope without a passing test (coverage); undefined while unknown. */
    private readonly untestedCount: (scope: NamespaceScope) => number | undefined = () => undefined,
    /** The cluster-wide defaults in effect (watched): the alert thresholds come from them. */
    private readonly clusterDefaults: () => Readonly<ClusterDefaults> = () => BUILT_IN_CLUSTER_DEFAULTS,
  ) {
    this.reads = new ScopedReads(cache);
  }

  /** The alert thresholds now (they change with the ConfigMap, without a restart). */
  alertThresholds(): AlertThresholds {
    return alertThresholds(this.clusterDefaults());
  }

  summary(scope: NamespaceScope = ALL_NAMESPACES): Summary {
    requireSynced(this.cache);
    const untested = this.untestedCount(scope);
    return {
      ...summary(this.reads.tests(scope), this.reads.reportIndex(scope), this.now()),
      ...(untested === undefined ? {} : { namespacesBackedUpUntested: untested }),
    };
  }

  daily(days: number, scope: NamespaceScope = ALL_NAMESPACES): DailySummary[] {
    requireSynced(this.cache);
    return daily(this.reads.reportIndex(scope), days, this.now());
  }

  alerts(hours: number, scope: NamespaceScope = ALL_NAMESPACES): Alert[] {
    requireSynced(this.cache);
    return alerts(this.reads.tests(scope), this.reads.reportIndex(scope), hours, this.now(), this.alertThresholds());
  }

  upcoming(scope: NamespaceScope = ALL_NAMESPACES): UpcomingTest[] {
    requireSynced(this.cache);
    return upcoming(this.reads.tests(scope), this.now());
  }
}
