// The API door of decision 0009 (the admission door is deploy/base/restoretest-admission.yaml):
// before the API writes a RestoreTest for a caller, one SubjectAccessReview per permission that
// restoreRequirements() names, for that caller. The API writes with its own ServiceAccount, which
// the admission policy exempts for exactly this reason. In auth mode none, on port 8080
// (development only), there is no caller to review; on the aggregation port there always is.
import {
  describeMissing,
  restoreRequirements,
  type RestoreAdmissionSettings,
} from '../../domain/permissions/restore-permissions.js';
import type { RestoreTestSpec } from '../../domain/resources/resources.js';
import { ProblemError } from '../problem.js';
import type { AccessReviewer, ReviewedUser } from './access-review.js';

export class RestoreAccess {
  constructor(
    readonly settings: RestoreAdmissionSettings,
    private readonly reviewer: AccessReviewer | undefined,
  ) {}

  /** Resolves when `user` may write `spec` into `namespace`; else a 403 naming what is missing. */
  async check(user: ReviewedUser | undefined, namespace: string, spec: RestoreTestSpec): Promise<void> {
    if (!this.reviewer || !user) return;
    const { permissions } = restoreRequirements(namespace, spec, this.settings);
    const decisions = await Promise.all(
      permissions.map((permission) => this.reviewer!.reviewAccess(user, permission)),
    );
    const missing = permissions.filter((_permission, index) => !decisions[index]!.allowed);
    if (missing.length === 0) return;
    throw new ProblemError(
      'forbidden',
      `User "${user.username}" ${missing.map(describeMissing).join('; and ')}.`,
      {
        missingPermissions: missing.map(({ verb, group, resource, namespace: where }) => ({
          verb,
          group,
          resource,
          namespace: where,
        })),
      },
    );
  }
}
