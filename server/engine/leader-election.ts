// Leader election on a coordination.k8s.io/v1 Lease, following client-go's leaderelection:
//
// - Expiry is judged on THIS replica's clock only: a candidate remembers when it last saw the
//   lease record change (observedAt) and takes the lease once it has not changed for a lease
//   duration since then. The holder's renewTime is written for people and other tools, never
//   compared with the local clock, so clock skew between replicas cannot make two leaders.
// - The leader must renew within the renew deadline (< lease duration) of its last successful
//   renewal, else it stops leading. Every request carries a per-attempt timeout (aborted, not just
//   abandoned), so a hung apiserver connection cannot keep a replica leading past the deadline.
// - Hence a leader cut off from the apiserver has stopped (onStoppedLeading) before any other
//   replica can take over: the others wait a full lease duration from the last renewal they saw,
//   which is no earlier than the last renewal the leader made.
// - Writes carry the Lease's resourceVersion, so two candidates cannot both win one transition.
// Only the leader runs the reconciliation loop; every replica serves the API.
import {
  setHeaderMiddleware,
  V1MicroTime,
  type CoordinationV1Api,
  type V1Lease,
  type V1LeaseSpec,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { isKind, kubeCall } from '../kube/errors.js';

export interface LeaderElectionOptions {
  namespace: string;
  name: string;
  identity: string;
  /** How long candidates wait after the last change they saw (default 15 s). */
  leaseDurationSeconds?: number;
  /** How long the leader keeps leading without a successful renewal (default 10 s). */
  renewDeadlineMs?: number;
  /** Time between attempts (default 2 s). */
  retryPeriodMs?: number;
  /** The local clock in ms (injectable for tests of skew). */
  now?: () => number;
}

export interface LeaderCallbacks {
  onStartedLeading(): void;
  onStoppedLeading(): void;
}

/** client-go's JitterFactor: the renew deadline must leave room for a jittered retry. */
const JITTER_FACTOR = 1.2;

/** The parts of a lease record whose change means "the holder is alive". */
function recordOf(spec: V1LeaseSpec | undefined): string {
  return JSON.stringify([
    spec?.holderIdentity ?? '',
    spec?.renewTime ? new Date(spec.renewTime).getTime() : 0,
    spec?.acquireTime ? new Date(spec.acquireTime).getTime() : 0,
    spec?.leaseTransitions ?? 0,
    spec?.leaseDurationSeconds ?? 0,
  ]);
}

/** Request options that abort the request when `signal` does. */
function abortWith(signal: AbortSignal) {
  // client-node has no per-call signal option; a middleware may set one on the request context.
  const base = setHeaderMiddleware('X-Rehearsal-Leader-Election', 'attempt');
  return {
    middleware: [
      {
        pre: (context: Parameters<typeof base.pre>[0]) => {
          context.setSignal(signal);
          return base.pre(context);
        },
        post: base.post,
      },
    ],
    middlewareMergeStrategy: 'append' as const,
  };
}

export class LeaderElector {
  private leading = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly now: () => number;
  /** The lease record last seen, and when (local clock) it was first seen like that. */
  private observedRecord: string | undefined;
  private observedAt = 0;
  /** Local time of this replica's last successful acquire or renewal. */
  private lastRenewedAt = 0;

  constructor(
    private readonly api: CoordinationV1Api,
    private readonly options: LeaderElectionOptions,
    private readonly callbacks: LeaderCallbacks,
    private readonly log: Logger,
  ) {
    this.leaseDurationMs = (options.leaseDurationSeconds ?? 15) * 1000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2000;
    this.now = options.now ?? Date.now;
    if (this.leaseDurationMs <= this.renewDeadlineMs) {
      throw new Error('leader election: the lease duration must be greater than the renew deadline');
    }
    if (this.renewDeadlineMs <= JITTER_FACTOR * this.retryPeriodMs) {
      throw new Error(
        `leader election: the renew deadline must be greater than ${JITTER_FACTOR} x the retry period`,
      );
    }
  }

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.tick();
  }

  /** Stops campaigning and releases the lease if held, so a successor takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    if (!this.leading) return;
    this.setLeading(false);
    const { namespace, name, identity } = this.options;
    try {
      const lease = await this.call((options) => this.api.readNamespacedLease({ namespace, name }, options));
      if (lease.spec?.holderIdentity === identity) {
        // client-go's release: no holder, a 1 s duration, so candidates need not wait.
        lease.spec = { ...lease.spec, holderIdentity: undefined, leaseDurationSeconds: 1 };
        await this.call((options) =>
          this.api.replaceNamespacedLease({ namespace, name, body: lease }, options),
        );
      }
    } catch (error) {
      this.log.warn({ err: error }, 'could not release the leader lease');
    }
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    try {
      const held = await this.tryAcquireOrRenew();
      if (held) this.lastRenewedAt = this.now();
      if (held && !this.stopped) this.setLeading(true);
      else if (!held && this.leading) this.setLeading(false); // another replica holds it now
    } catch (error) {
      this.log.warn({ err: error }, 'leader election attempt failed');
    }
    if (this.leading && this.now() - this.lastRenewedAt >= this.renewDeadlineMs) {
      this.log.warn({ renewDeadlineMs: this.renewDeadlineMs }, 'could not renew the leader lease in time');
      this.setLeading(false);
    }
    if (this.stopped) return;
    // Candidates jitter their attempts (client-go's JitterUntil); the leader renews on the period.
    const delay = this.leading
      ? this.retryPeriodMs
      : this.retryPeriodMs * (1 + Math.random() * (JITTER_FACTOR - 1));
    this.timer = setTimeout(() => void this.tick(), delay);
  }

  private setLeading(leading: boolean): void {
    if (leading === this.leading) return;
    this.leading = leading;
    this.log.info(
      { identity: this.options.identity, leading },
      leading ? 'became leader' : 'stopped leading',
    );
    if (leading) this.callbacks.onStartedLeading();
    else this.callbacks.onStoppedLeading();
  }

  /**
   * One API call, aborted when the attempt's time is up: the leader's time left before its renew
   * deadline, a candidate's renew deadline.
   */
  private async call<T>(request: (options: ReturnType<typeof abortWith>) => Promise<T>): Promise<T> {
    const budget = this.leading
      ? Math.max(1, this.lastRenewedAt + this.renewDeadlineMs - this.now())
      : this.renewDeadlineMs;
    const signal = AbortSignal.timeout(budget);
    return kubeCall(() => request(abortWith(signal)));
  }

  private observe(spec: V1LeaseSpec | undefined): void {
    const record = recordOf(spec);
    if (record !== this.observedRecord) {
      this.observedRecord = record;
      this.observedAt = this.now();
    }
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const { namespace, name, identity } = this.options;
    const wallClock = new V1MicroTime(this.now());
    const durationSeconds = this.leaseDurationMs / 1000;
    let lease: V1Lease;
    try {
      lease = await this.call((options) => this.api.readNamespacedLease({ namespace, name }, options));
    } catch (error) {
      if (!isKind(error, 'NotFound')) throw error;
      const spec: V1LeaseSpec = {
        holderIdentity: identity,
        leaseDurationSeconds: durationSeconds,
        acquireTime: wallClock,
        renewTime: wallClock,
        leaseTransitions: 0,
      };
      try {
        await this.call((options) =>
          this.api.createNamespacedLease(
            { namespace, body: { metadata: { name, namespace }, spec } },
            options,
          ),
        );
      } catch (createError) {
        if (isKind(createError, 'AlreadyExists', 'Conflict')) return false;
        throw createError;
      }
      this.observe(spec);
      return true;
    }
    const spec = lease.spec ?? {};
    this.observe(spec);
    const holder = spec.holderIdentity;
    const duration = (spec.leaseDurationSeconds ?? durationSeconds) * 1000;
    // Expired by this replica's own observation, never by comparing renewTime with our clock.
    if (holder && holder !== identity && this.observedAt + duration > this.now()) return false;
    const renewed: V1LeaseSpec = {
      ...spec,
      holderIdentity: identity,
      leaseDurationSeconds: durationSeconds,
      renewTime: wallClock,
      acquireTime: holder === identity ? spec.acquireTime : wallClock,
      leaseTransitions: (spec.leaseTransitions ?? 0) + (holder === identity ? 0 : 1),
    };
    try {
      await this.call((options) =>
        this.api.replaceNamespacedLease({ namespace, name, body: { ...lease, spec: renewed } }, options),
      );
    } catch (error) {
      if (isKind(error, 'Conflict')) return false;
      throw error;
    }
    this.observe(renewed);
    return true;
  }
}
