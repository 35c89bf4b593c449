// API types that are not domain read models. RestoreReportResource is the RestoreReport custom
// resource exactly as the API returns it; it only restates the two type-level fields tsoa cannot
// read from server/domain/resources.ts (`typeof API_VERSION`). ReportsController returns domain
// RestoreReports as this type, so the build fails if the two ever drift apart.
import type { ObjectMeta, RestoreReportSpec } from '../domain/resources.js';

/** A RestoreReport in its full resource representation (as `kubectl get restorereport -o json`). */
export interface RestoreReportResource {
  /** rehearsal.dev/v1alpha1 */
  apiVersion: string;
  kind: 'RestoreReport';
  metadata: ObjectMeta;
  spec: RestoreReportSpec;
}
