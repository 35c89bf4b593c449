// Leadership lost in the middle of a run's health checks (the Lease taken by another holder, not a
// clean stop): the old leader's engine stops within a second of learning it — the check in flight
// is aborted, its probe connection closed — and the next leader resumes the run from its durable
// stage (Validating), runs the checks again and writes exactly one report.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server, type Socket } from 'node:net';
import { CoordinationV1Api, V1MicroTime } from '@kubernetes/client-node';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import {
  createEngineFixture,
  createRestoreTest,
  getRestoreTest,
  listReports,
  restoreTestBody,
  trigger,
  uniqueTestName,
  waitForReports,
  type EngineFixture,
} from '../helpers/engine-fixture.js';
import { deleteNamespaces, uniqueName, waitFor } from '../helpers/kube.js';
import { REHEARSAL_NAMESPACE, rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';

let fixture: EngineFixture;
const replicas: Rehearsal[] = [];
const leaseName = uniqueName('lease');
/** A probe target that accepts connections and answers only once told to. */
let slow: Server;
let answering = false;
const connections: { socket: Socket; closedAt?: number }[] = [];

beforeAll(async () => {
  fixture = await createEngineFixture('lost');
  slow = createServer((socket) => {
    const entry: { socket: Socket; closedAt?: number } = { socket };
    connections.push(entry);
    socket.on('close', () => (entry.closedAt = Date.now()));
    socket.on('error', () => undefined);
    socket.on('data', () => {
      if (answering) socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok');
    });
  });
  await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
  const port = (slow.address() as { port: number }).port;
  const kubeconfigPath = await rehearsalKubeconfig('leadership-loss.kubeconfig');
  for (const identity of ['replica-a', 'replica-b']) {
    replicas.push(
      await startInProcess({
        kubeconfigPath,
        veleroNamespace: fixture.veleroNamespace,
        probeTargets: { ...fixture.endpoints.targets, 'slow:80': `127.0.0.1:${port}` },
        leaderElection: true,
        leaseName,
        extra: { REHEARSAL_IDENTITY: identity },
      }),
    );
  }
}, 120_000);

afterAll(async () => {
  for (const replica of replicas) await replica.stop();
  for (const { socket } of connections) socket.destroy();
  await new Promise((resolve) => slow?.close(resolve));
  await fixture?.stop();
  await deleteNamespaces(fixture.admin, [fixture.source, fixture.testNamespace, fixture.veleroNamespace]);
});

describe('leadership lost during a run', () => {
  it('aborts the checks in flight within a second, and the next leader finishes the run once', async () => {
    const leader = await waitFor(() => replicas.find((replica) => replica.leader?.isLeader), { timeoutMs: 30_000, description: 'a leader' });
    const name = uniqueTestName('lost');
    await createRestoreTest(
      fixture,
      restoreTestBody(fixture, name, {
        healthChecks: { checks: [{ name: 'slow-http', kind: 'httpGet', timeout: '2m', httpGet: { service: 'slow', port: 80, path: '/' } }] },
      }),
    );
    await trigger(fixture, name);
    await waitFor(() => connections.length > 0, { timeoutMs: 90_000, description: 'the check to reach the probe target' });
    expect((await getRestoreTest(fixture, name)).status?.currentRun?.stage).toBe('Validating');

    // Another holder takes the Lease (as after a network partition); it lapses after 5 s.
    const leases = fixture.admin.makeApiClient(CoordinationV1Api);
    await waitFor(
      async () => {
        // Retried: the leader renews every 2 s, and a renewal in between makes this write conflict.
        const lease = await leases.readNamespacedLease({ namespace: REHEARSAL_NAMESPACE, name: leaseName });
        lease.spec = { ...lease.spec, holderIdentity: 'someone-else', renewTime: new V1MicroTime(Date.now()), leaseDurationSeconds: 5 };
        await leases.replaceNamespacedLease({ namespace: REHEARSAL_NAMESPACE, name: leaseName, body: lease });
        return true;
      },
      { timeoutMs: 10_000, intervalMs: 100, description: 'the Lease to be taken' },
    );
    await waitFor(() => !leader.leader?.isLeader, { timeoutMs: 10_000, intervalMs: 20, description: 'the leader to notice' });
    const noticed = Date.now();
    await waitFor(() => connections[0]!.closedAt !== undefined, { timeoutMs: 5_000, intervalMs: 20, description: 'the probe to be aborted' });
    const abortedAfter = connections[0]!.closedAt! - noticed;
    console.log(`[measure] leadership lost → check in flight aborted after ${abortedAfter} ms`);
    expect(abortedAfter).toBeLessThan(1000);
    expect(leader.controller.running).toBe(false);

    // The next leader (either replica, once the Lease lapses) resumes from Validating.
    answering = true;
    const [report] = await waitForReports(fixture, name, 1, 120_000);
    expect(report!.spec.checks).toEqual([expect.objectContaining({ name: 'slow-http', status: 'pass' })]);
    expect(connections.length).toBeGreaterThanOrEqual(2);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(await listReports(fixture, name)).toHaveLength(1);
  }, 240_000);
});
