// Invariant 3: no sandbox namespace outlives its TTL plus one janitor pass. Every 5 s the
// namespaces labelled rehearsal.dev/managed-by=rehearsal are listed; one not yet being deleted
// whose rehearsal.dev/expires-at (the run's start + the test's sandbox ttl) lies further back than
// one janitor interval plus a grace is a violation. A passing run deletes its sandbox at once; a
// failed one keeps it until then. The grace covers one sweep's own time and what the injected
// faults took away from the janitor: while the apiserver is stopped or no replica leads, nobody
// can delete anything, so every fault overlapping the wait (plus a lease's takeover) is added.
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { ANNOTATION_EXPIRES_AT, LABEL_MANAGED_BY, MANAGED_BY_VALUE } from '../../../server/domain/resources/resources.js';
import type { Violations } from './violations.js';

/** What one sweep may take, a slow busy machine included. */
const SWEEP_GRACE_MS = 30_000;

export class SandboxWatch {
  /** Most sandboxes seen at once, and how many distinct ones were seen. */
  maxPresent = 0;
  readonly seen = new Set<string>();
  polls = 0;
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  private readonly core: CoreV1Api;

  constructor(
    admin: KubeConfig,
    private readonly janitorIntervalMs: number,
    /** Milliseconds of injected disruption between two instants (see fault-injector.ts). */
    private readonly disruptedMs: (from: number, to: number) => number,
    private readonly violations: Violations,
  ) {
    this.core = admin.makeApiClient(CoreV1Api);
  }

  start(): void {
    this.timer = setInterval(() => void this.check(), 5000);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /**
   * When the last sandbox there now must be gone by (its expiry + one janitor pass + the grace), or
   * undefined when none is left: the end waits for it, so a sandbox kept for good is caught even
   * when its run finished just before the faults stopped.
   */
  async lastDeadline(): Promise<number | undefined> {
    const list = await this.core.listNamespace({ labelSelector: `${LABEL_MANAGED_BY}=${MANAGED_BY_VALUE}` });
    const expiries = list.items
      .filter((namespace) => !namespace.metadata?.deletionTimestamp)
      .map((namespace) => Date.parse(namespace.metadata?.annotations?.[ANNOTATION_EXPIRES_AT] ?? ''))
      .filter((at) => Number.isFinite(at));
    if (expiries.length === 0) return undefined;
    return Math.max(...expiries) + this.janitorIntervalMs + SWEEP_GRACE_MS + 1000;
  }

  /** One look; an apiserver that cannot answer now is skipped (the next look catches up). */
  async check(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const list = await this.core.listNamespace({ labelSelector: `${LABEL_MANAGED_BY}=${MANAGED_BY_VALUE}`, timeoutSeconds: 10 });
      const now = Date.now();
      this.polls++;
      this.maxPresent = Math.max(this.maxPresent, list.items.length);
      for (const namespace of list.items) {
        const name = namespace.metadata?.name ?? '';
        this.seen.add(name);
        if (namespace.metadata?.deletionTimestamp) continue;
        const expiresAt = Date.parse(namespace.metadata?.annotations?.[ANNOTATION_EXPIRES_AT] ?? '');
        if (!Number.isFinite(expiresAt)) {
          this.violations.record('sandbox-ttl', `sandbox ${name} has no readable ${ANNOTATION_EXPIRES_AT} annotation`, name);
          continue;
        }
        const allowed = expiresAt + this.janitorIntervalMs + SWEEP_GRACE_MS + this.disruptedMs(expiresAt, now);
        if (now > allowed) {
          this.violations.record(
            'sandbox-ttl',
            `sandbox ${name} (run ${namespace.metadata?.labels?.['rehearsal.dev/run'] ?? '?'}) expired at ${new Date(expiresAt).toISOString()} ` +
              `and still exists ${Math.round((now - expiresAt) / 1000)} s later, not being deleted`,
            name,
          );
        }
      }
    } catch {
      // the apiserver is stopped or restarting: nothing to judge now
    } finally {
      this.busy = false;
    }
  }
}
