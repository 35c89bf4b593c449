// Two replicas on one Lease: exactly one runs the engine, both serve the API, and when the leader
// stops the other takes over and runs the next restore test.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoordinationV1Api } from '@kubernetes/client-node';
import type { Rehearsal } from '../../server/rehearsal.js';
import {
  createEngineFixture,
  createRestoreTest,
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
    await waitFor(() => follower.leader?.isLeader, { timeoutMs: 30_000, description: 'the follower to take over' });

    const second = uniqueTestName('under-b');
    await createRestoreTest(fixture, restoreTestBody(fixture, second, {}));
    await trigger(fixture, second);
    expect(await waitForReports(fixture, second)).toHaveLength(1);
  }, 120_000);
});
