// Are the admission policies that decide who may restore another namespace installed? (decision
// 0018) The engine trusts a recorded author only because rehearsal-restoretest-author and
// rehearsal-healthcheckpolicy-author checked the writer; with a policy or its binding deleted (or
// its binding no longer denying), anyone who may write a RestoreTest could name any namespace. So
// the guard lists them at start and every minute, says so loudly when one is missing (an error log
// line, the gauge rehearsal_admission_policy_missing), and the run permission refuses tests whose
// sources differ from their namespace (condition RunAllowed, reason AdmissionPoliciesMissing). A
// run about to start asks for an answer at most a few seconds old. A list the apiserver refuses
// (RBAC, a bad request) counts as missing (fail closed). A list that does not get an answer at all
// (the apiserver restarting, overloaded: KubeError Unavailable) says nothing about the policies:
// the run waits (missing() throws, the reconcile is retried with backoff) instead of ending with
// a report blaming policies that are installed (the soak's finding, issue 31), and the gauge keeps
// its last known value.
import type { AdmissionregistrationV1Api } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { POLICY_ADMISSION_NAME } from '../domain/permissions/health-check-policy-admission.js';
import { ADMISSION_POLICY_NAME } from '../domain/permissions/restore-admission-policy.js';
import { isKind, kubeCall } from '../kube/errors.js';
import type { Metrics } from '../metrics/metrics.js';

/** The policies (each bound under its own name) whose absence stops cross-namespace runs. */
export const GUARDED_POLICIES: readonly string[] = [ADMISSION_POLICY_NAME, POLICY_ADMISSION_NAME];

export interface AdmissionGuardDeps {
  api: Pick<AdmissionregistrationV1Api, 'listValidatingAdmissionPolicy' | 'listValidatingAdmissionPolicyBinding'>;
  metrics: Pick<Metrics, 'admissionPolicyMissing'>;
  log: Logger;
  now: () => number;
  /** How often the guard looks without being asked (default 60 s). */
  intervalMs?: number;
  /** How old an answer a run may be given (default 5 s). */
  maxAgeMs?: number;
}

interface Observation {
  at: number;
  missing: string[];
  /** The lists got no answer (Unavailable): `missing` is unknown, not empty. */
  unanswered?: string;
}

/** The policies could not be looked at: the apiserver did not answer. A run step retries later. */
export class AdmissionUnknownError extends Error {
  override readonly name = 'AdmissionUnknownError';
}

/** What is missing among `policies`, from the cluster's lists (pure: table-tested). */
export function missingAdmission(
  policies: readonly string[],
  installed: readonly { name?: string }[],
  bindings: readonly { name?: string; policyName?: string; actions?: readonly string[] }[],
): string[] {
  const missing: string[] = [];
  for (const name of policies) {
    if (!installed.some((policy) => policy.name === name)) missing.push(`ValidatingAdmissionPolicy/${name}`);
    const denying = bindings.some((binding) => binding.policyName === name && (binding.actions ?? []).includes('Deny'));
    if (!denying) missing.push(`ValidatingAdmissionPolicyBinding/${name}`);
  }
  return missing;
}

export class AdmissionGuard {
  private last: Observation | undefined;
  private pending: Promise<Observation> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly deps: AdmissionGuardDeps) {}

  start(): void {
    this.stopped = false;
    if (this.timer) return;
    void this.check();
    this.timer = setInterval(() => void this.check(), this.deps.intervalMs ?? 60_000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    // A replica that stops leading stops looking: it exports no answer rather than a stale one, so
    // the alert (max over replicas) follows the leader's view alone.
    this.stopped = true;
    this.last = undefined;
    this.deps.metrics.admissionPolicyMissing.reset();
  }

  /**
   * What is missing now (an answer at most maxAgeMs old). Throws AdmissionUnknownError when the
   * apiserver did not answer: no run may start on that, nor fail for it.
   */
  async missing(): Promise<string[]> {
    const last = this.last;
    const fresh = last && !last.unanswered && this.deps.now() - last.at <= (this.deps.maxAgeMs ?? 5_000);
    const observation = fresh ? last : await this.check();
    if (observation.unanswered) {
      throw new AdmissionUnknownError(`the admission policies could not be looked at (${observation.unanswered}); the run waits for an answer`);
    }
    return observation.missing;
  }

  private check(): Promise<Observation> {
    this.pending ??= this.observe().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async observe(): Promise<Observation> {
    let missing: string[];
    try {
      const [policies, bindings] = await Promise.all([
        kubeCall(() => this.deps.api.listValidatingAdmissionPolicy()),
        kubeCall(() => this.deps.api.listValidatingAdmissionPolicyBinding()),
      ]);
      missing = missingAdmission(
        GUARDED_POLICIES,
        policies.items.map((policy) => ({ name: policy.metadata?.name })),
        bindings.items.map((binding) => ({ name: binding.metadata?.name, policyName: binding.spec?.policyName, actions: binding.spec?.validationActions })),
      );
    } catch (error) {
      if (isKind(error, 'Unavailable')) {
        // Unknown is not missing: the last answer (and the gauge) stand until the apiserver answers.
        this.deps.log.warn({ err: error }, 'admission policies could not be listed (apiserver unavailable); runs of cross-namespace tests wait');
        return { at: this.deps.now(), missing: this.last?.missing ?? [], unanswered: (error as Error).message };
      }
      missing = [`(the policies could not be listed: ${(error as Error).message})`];
    }
    const previous = this.last?.missing.join(',');
    this.last = { at: this.deps.now(), missing };
    for (const name of this.stopped ? [] : GUARDED_POLICIES) {
      const gone = missing.filter((entry) => entry.endsWith(`/${name}`) || entry.startsWith('('));
      this.deps.metrics.admissionPolicyMissing.set({ policy: name }, gone.length > 0 ? 1 : 0);
    }
    if (missing.length > 0) {
      this.deps.log.error(
        { missing },
        'admission policies that check who may restore another namespace are missing: tests whose sources differ from their namespace will not run',
      );
    } else if (previous) {
      this.deps.log.info('admission policies are installed again: cross-namespace tests may run');
    }
    return this.last;
  }
}
