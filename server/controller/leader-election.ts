// Leader election on a coordination.k8s.io/v1 Lease, as client-go does it: the holder renews
// every retry period; a candidate takes the lease once it has not been renewed for a lease
// duration. Writes use the Lease's resourceVersion, so two candidates cannot both win.
// Only the leader runs the reconciliation loop; every replica serves the API.
import { V1MicroTime, type CoordinationV1Api, type V1Lease } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { isKind, kubeCall } from '../kube/errors.js';

export interface LeaderElectionOptions {
  namespace: string;
  name: string;
  identity: string;
  leaseDurationSeconds?: number;
  retryPeriodMs?: number;
  now?: () => Date;
}

export interface LeaderCallbacks {
  onStartedLeading(): void;
  onStoppedLeading(): void;
}

export class LeaderElector {
  private leading = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly leaseDurationSeconds: number;
  private readonly retryPeriodMs: number;
  private readonly now: () => Date;

  constructor(
    private readonly api: CoordinationV1Api,
    private readonly options: LeaderElectionOptions,
    private readonly callbacks: LeaderCallbacks,
    private readonly log: Logger,
  ) {
    this.leaseDurationSeconds = options.leaseDurationSeconds ?? 15;
    this.retryPeriodMs = options.retryPeriodMs ?? 2000;
    this.now = options.now ?? (() => new Date());
  }

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    this.stopped = false;
    void this.tick();
  }

  /** Stops campaigning and releases the lease if held, so a successor takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    if (!this.leading) return;
    this.setLeading(false);
    try {
      const lease = await kubeCall(() =>
        this.api.readNamespacedLease({ namespace: this.options.namespace, name: this.options.name }),
      );
      if (lease.spec?.holderIdentity === this.options.identity) {
        lease.spec.holderIdentity = undefined;
        lease.spec.renewTime = undefined;
        await kubeCall(() =>
          this.api.replaceNamespacedLease({ namespace: this.options.namespace, name: this.options.name, body: lease }),
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
      this.setLeading(held);
    } catch (error) {
      this.log.warn({ err: error }, 'leader election attempt failed');
      // Losing contact for longer than the lease means another replica may lead now.
      if (this.leading && this.lastRenew && this.now().getTime() - this.lastRenew > this.leaseDurationSeconds * 1000) {
        this.setLeading(false);
      }
    }
    if (!this.stopped) this.timer = setTimeout(() => void this.tick(), this.retryPeriodMs);
  }

  private lastRenew: number | undefined;

  private setLeading(leading: boolean): void {
    if (leading === this.leading) return;
    this.leading = leading;
    this.log.info({ identity: this.options.identity, leading }, leading ? 'became leader' : 'stopped leading');
    if (leading) this.callbacks.onStartedLeading();
    else this.callbacks.onStoppedLeading();
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const { namespace, name, identity } = this.options;
    const now = this.now();
    const microTime = new V1MicroTime(now.getTime());
    let lease: V1Lease;
    try {
      lease = await kubeCall(() => this.api.readNamespacedLease({ namespace, name }));
    } catch (error) {
      if (!isKind(error, 'NotFound')) throw error;
      try {
        await kubeCall(() =>
          this.api.createNamespacedLease({
            namespace,
            body: {
              metadata: { name, namespace },
              spec: {
                holderIdentity: identity,
                leaseDurationSeconds: this.leaseDurationSeconds,
                acquireTime: microTime,
                renewTime: microTime,
                leaseTransitions: 0,
              },
            },
          }),
        );
        this.lastRenew = now.getTime();
        return true;
      } catch (createError) {
        if (isKind(createError, 'AlreadyExists', 'Conflict')) return false;
        throw createError;
      }
    }
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity;
    const renewedAt = spec.renewTime ? new Date(spec.renewTime).getTime() : 0;
    const duration = (spec.leaseDurationSeconds ?? this.leaseDurationSeconds) * 1000;
    const expired = !holder || renewedAt + duration < now.getTime();
    if (holder !== identity && !expired) return false;
    const transitions = (spec.leaseTransitions ?? 0) + (holder === identity ? 0 : 1);
    lease.spec = {
      ...spec,
      holderIdentity: identity,
      leaseDurationSeconds: this.leaseDurationSeconds,
      renewTime: microTime,
      acquireTime: holder === identity ? spec.acquireTime : (microTime),
      leaseTransitions: transitions,
    };
    try {
      await kubeCall(() => this.api.replaceNamespacedLease({ namespace, name, body: lease }));
      this.lastRenew = now.getTime();
      return true;
    } catch (error) {
      if (isKind(error, 'Conflict')) return false;
      throw error;
    }
  }
}
