// The dashboard's read models (decision 0005), computed by domain functions over the cache.
import { alerts, daily, summary, upcoming } from '../../domain/read-models/aggregates.js';
import type { Alert, DailySummary, Summary, UpcomingTest } from '../../domain/read-models/views.js';
import type { ApiCache } from '../ports.js';
import { requireSynced } from './readiness.js';
import { alertThresholds, BUILT_IN_CLUSTER_DEFAULTS, type AlertThresholds, type ClusterDefaults } from '../../domain/run/cluster-defaults.js';

export class DashboardService {
  constructor(
    private readonly cache: ApiCache,
    private readonly now: () => Date,
    /** Backed-up namespaces without a passing test (coverage); undefined while unknown. */
    private readonly untestedCount: () => number | undefined = () => undefined,
    /** The cluster-wide defaults in effect (watched): the alert thresholds come from them. */
    private readonly clusterDefaults: () => Readonly<ClusterDefaults> = () => BUILT_IN_CLUSTER_DEFAULTS,
  ) {}

  /** The alert thresholds now (they change with the ConfigMap, without a restart). */
  alertThresholds(): AlertThresholds {
    return alertThresholds(this.clusterDefaults());
  }

  summary(): Summary {
    requireSynced(this.cache);
    const untested = this.untestedCount();
    return {
      ...summary(this.cache.listTests(), this.cache.reportIndex, this.now()),
      ...(untested === undefined ? {} : { namespacesBackedUpUntested: untested }),
    };
  }

  daily(days: number): DailySummary[] {
    requireSynced(this.cache);
    return daily(this.cache.reportIndex, days, this.now());
  }

  alerts(hours: number): Alert[] {
    requireSynced(this.cache);
    return alerts(this.cache.listTests(), this.cache.reportIndex, hours, this.now(), this.alertThresholds());
  }

  upcoming(): UpcomingTest[] {
    requireSynced(this.cache);
    return upcoming(this.cache.listTests(), this.now());
  }
}
