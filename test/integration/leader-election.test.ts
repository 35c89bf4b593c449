// Two replicas on one Lease: exactly one runs the engine, both serve the API, and when the leader
// stops the other takes over and runs the next restore test.
// Then the elector itself, as client-go's leaderelection behaves: a leader whose apiserver
// connection freezes (a loopback TCP proxy that stops forwarding) stops leading before the other
// replica takes over, and a 30 s clock skew between replicas never makes two leaders.
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoordinationV1Api, type KubeConfig } from '@kubernetes/client-node';
import pino from 'pino';
import { LeaderElector } from '../../server/engine/leader-election.js';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import {
  createEngineFixture,
  createRestoreTest,
  restoreTestBody,
  trigger,
  uniqueTestName,
  waitForReports,
  type EngineFixture,
} from '../helpers/engine-fixture.js';
import { deleteNamespaces, testKubeConfig, uniqueName, waitFor } from '../helpers/kube.js';
import { REHEARSAL_NAMESPACE, rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';

let fixture: EngineFixture;
const replicas: Rehearsal[] = [];
const leaseName = uniqueName('lease');

beforeAll(async () => {
  fixture = await createEngineFixture('leader');
  const kubeconfigPath = await rehearsalKubeconfig('leader.kubeconfig');
  for (const identity of ['replica-a', 'replica-b']) {
    replicas.push(
      await startInProcess({
        kubeconfigPath,
        veleroNamespace: fixture.veleroNamespace,
        probeTargets: fixture.endpoints.targets,
        leaderElection: true,
        leaseName,
        extra: { REHEARSAL_IDENTITY: identity },
      }),
    );
  }
}, 120_000);

afterAll(async () => {
  for (const replica of replicas) await replica.stop();
  await fixture?.stop();
  await deleteNamespaces(fixture.admin, [fixture.source, fixture.testNamespace, fixture.veleroNamespace]);
});

describe('leader election', () => {
  it('lets exactly one replica lead, and hands over when the leader stops', async () => {
    const leader = await waitFor(() => replicas.find((replica) => replica.leader?.isLeader), {
      timeoutMs: 30_000,
      description: 'a leader',
    });
    expect(replicas.filter((replica) => replica.leader?.isLeader)).toHaveLength(1);
    const lease = await fixture.admin
      .makeApiClient(CoordinationV1Api)
      .readNamespacedLease({ namespace: REHEARSAL_NAMESPACE, name: leaseName });
    expect(lease.spec?.holderIdentity).toBe(leader.config.identity);

    const first = uniqueTestName('under-a');
    await createRestoreTest(fixture, restoreTestBody(fixture, first, {}));
    await trigger(fixture, first);
    expect(await waitForReports(fixture, first)).toHaveLength(1);

    const follower = replicas.find((replica) => replica !== leader)!;
    expect(follower.cache.getTest(fixture.testNamespace, first)).toBeDefined(); // followers serve reads
    await leader.stop();
    replicas.splice(replicas.indexOf(leader), 1);
    await waitFor(() => follower.leader?.isLeader, {
      timeoutMs: 30_000,
      description: 'the follower to take over',
    });

    const second = uniqueTestName('under-b');
    await createRestoreTest(fixture, restoreTestBody(fixture, second, {}));
    await trigger(fixture, second);
    expect(await waitForReports(fixture, second)).toHaveLength(1);
  }, 120_000);
});

// ------------------------------------------------------------------------- the elector itself

/**
 * A loopback TCP proxy to the apiserver that can freeze: paused, it holds every byte in both
 * directions (connections stay open, nothing arrives: a hung connection, not a refused one).
 */
class PausableProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly held: (() => void)[] = [];
  private paused = false;

  constructor(private readonly target: URL) {}

  async start(): Promise<number> {
    this.server = createServer((client) => {
      const upstream = connect(Number(this.target.port), this.target.hostname);
      const forward = (from: Socket, to: Socket): void => {
        from.on('data', (chunk: Buffer) => {
          const send = (): void => void (to.destroyed || to.write(chunk));
          if (this.paused) this.held.push(send);
          else send();
        });
        from.on('end', () => to.end());
      };
      forward(client, upstream);
      forward(upstream, client);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as { port: number }).port;
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    for (const send of this.held.splice(0)) send();
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

interface Replica {
  name: string;
  elector: LeaderElector;
  /** Local times (real clock) of onStartedLeading / onStoppedLeading. */
  started: number[];
  stopped: number[];
}

const TIMING = { leaseDurationSeconds: 3, renewDeadlineMs: 2_000, retryPeriodMs: 400 };

function replicaOf(name: string, kubeConfig: KubeConfig, lease: string, now?: () => number): Replica {
  const replica: Replica = { name, started: [], stopped: [], elector: undefined as unknown as LeaderElector };
  replica.elector = new LeaderElector(
    kubeConfig.makeApiClient(CoordinationV1Api),
    { namespace: REHEARSAL_NAMESPACE, name: lease, identity: name, ...TIMING, ...(now ? { now } : {}) },
    {
      onStartedLeading: () => replica.started.push(Date.now()),
      onStoppedLeading: () => replica.stopped.push(Date.now()),
    },
    pino({ level: 'silent' }),
  );
  return replica;
}

describe('the leader elector (client-go semantics)', () => {
  let proxy: PausableProxy;
  const electors: Replica[] = [];

  afterAll(async () => {
    proxy?.resume();
    for (const replica of electors) await replica.elector.stop();
    await proxy?.stop();
  });

  it('refuses timings where the renew deadline is not below the lease duration', () => {
    const api = testKubeConfig().makeApiClient(CoordinationV1Api);
    const options = { namespace: REHEARSAL_NAMESPACE, name: 'unused', identity: 'x' };
    const callbacks = { onStartedLeading: () => undefined, onStoppedLeading: () => undefined };
    expect(
      () =>
        new LeaderElector(
          api,
          { ...options, leaseDurationSeconds: 2, renewDeadlineMs: 2_000 },
          callbacks,
          pino(),
        ),
    ).toThrow('the lease duration must be greater than the renew deadline');
  });

  it('a leader whose apiserver connection freezes stops leading before the other replica takes over', async () => {
    const lease = uniqueName('lease-freeze');
    const direct = testKubeConfig();
    proxy = new PausableProxy(new URL(direct.getCurrentCluster()!.server));
    const port = await proxy.start();
    const proxied = testKubeConfig();
    const cluster = proxied.getCurrentCluster()!;
    proxied.clusters = proxied.clusters.map((entry) =>
      entry.name === cluster.name ? { ...entry, server: `https://127.0.0.1:${port}` } : entry,
    );
    const frozen = replicaOf('replica-frozen', proxied, lease);
    const healthy = replicaOf('replica-healthy', direct, lease);
    electors.push(frozen, healthy);
    frozen.elector.start();
    await waitFor(() => frozen.elector.isLeader, {
      timeoutMs: 10_000,
      description: 'the proxied replica to lead',
    });
    healthy.elector.start();
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // a few renewals seen by both
    expect(healthy.elector.isLeader).toBe(false);

    const frozenAt = Date.now();
    proxy.pause();
    await waitFor(() => healthy.elector.isLeader, {
      timeoutMs: 15_000,
      description: 'the healthy replica to take over',
    });
    const stoppedAt = frozen.stopped[0]!;
    const takenAt = healthy.started[0]!;
    // The frozen leader gave up by its renew deadline (2 s after its last renewal) ...
    expect(frozen.stopped).toHaveLength(1);
    expect(stoppedAt - frozenAt).toBeLessThanOrEqual(TIMING.renewDeadlineMs + 500);
    // ... strictly before the other replica could take over (a lease duration after the last renewal it saw).
    expect(takenAt).toBeGreaterThan(stoppedAt);
    expect(takenAt - frozenAt).toBeGreaterThanOrEqual(
      TIMING.leaseDurationSeconds * 1000 - TIMING.retryPeriodMs * 2,
    );
    console.log(
      `leader freeze: old leader stopped ${stoppedAt - frozenAt} ms after the freeze, new leader started ${takenAt - frozenAt} ms after it`,
    );

    // Thawed, the old leader sees the new holder and stays a follower.
    proxy.resume();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(frozen.elector.isLeader).toBe(false);
    expect(healthy.elector.isLeader).toBe(true);
  }, 60_000);

  it('a clock 30 s ahead on one replica does not make two leaders', async () => {
    const lease = uniqueName('lease-skew');
    const kubeConfig = testKubeConfig();
    const onTime = replicaOf('replica-on-time', kubeConfig, lease);
    // The skewed replica reads the holder's renewTime 30 s in the past: judged against its own
    // clock (the old rule), the lease would always look expired.
    const ahead = replicaOf('replica-ahead', kubeConfig, lease, () => Date.now() + 30_000);
    electors.push(onTime, ahead);
    onTime.elector.start();
    await waitFor(() => onTime.elector.isLeader, {
      timeoutMs: 10_000,
      description: 'the first replica to lead',
    });
    ahead.elector.start();
    let samples = 0;
    for (const started = Date.now(); Date.now() - started < 8_000; samples++) {
      const leaders = [onTime, ahead].filter((replica) => replica.elector.isLeader);
      expect(leaders.map((replica) => replica.name)).toEqual(['replica-on-time']);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(samples).toBeGreaterThan(100);
    expect(ahead.started).toEqual([]);

    // A released lease passes to the skewed replica at once; the other never leads alongside it.
    await onTime.elector.stop();
    await waitFor(() => ahead.elector.isLeader, {
      timeoutMs: 10_000,
      description: 'the skewed replica to lead',
    });
    expect(onTime.elector.isLeader).toBe(false);
  }, 60_000);
});
