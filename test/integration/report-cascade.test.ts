// Reports carry no ownerReference since issue 17's fourth cut, so kube-controller-manager no longer
// deletes a test's reports with it: the leader does (server/engine/report-cascade.ts). On the
// real control plane, evidence archive off (with it on: evidence-archive.test.ts): a deleted test's
// reports go, also those of a test deleted while no server ran and those of an older test of the
// same name; reports of a test that exists with the uid they name stay. Reports stored in the old
// form (an ownerReference to their test) are migrated at the start, their evidence unchanged.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { API_VERSION, type RestoreReport, type RestoreTest } from '../../server/domain/resources/resources.js';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import {
  createEngineFixture,
  createRestoreTest,
  listReports,
  restoreTestBody,
  trigger,
  uniqueTestName,
  waitForReports,
  type EngineFixture,
} from '../helpers/engine-fixture.js';
import { deleteNamespaces, waitFor } from '../helpers/kube.js';
import { rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';

let fixture: EngineFixture;
let kubeconfigPath: string;
let rehearsal: Rehearsal | undefined;
let template: RestoreReport;

async function start(): Promise<Rehearsal> {
  await rehearsal?.stop();
  rehearsal = await startInProcess({ kubeconfigPath, veleroNamespace: fixture.veleroNamespace, probeTargets: fixture.endpoints.targets });
  return rehearsal;
}

const REPORTS = { group: 'rehearsal.dev', version: 'v1alpha1', plural: 'restorereports' };
const TESTS = { group: 'rehearsal.dev', version: 'v1alpha1', plural: 'restoretests' };

/** A report of `test` shaped like the writer's (no ownerReference), copied from a real run's. */
async function addReport(test: RestoreTest, runId: string): Promise<void> {
  const body: RestoreReport = {
    apiVersion: API_VERSION,
    kind: 'RestoreReport',
    metadata: { name: `${test.metadata.name}-${runId}`, namespace: fixture.testNamespace },
    spec: { ...template.spec, runId, testRef: { name: test.metadata.name, namespace: fixture.testNamespace, uid: test.metadata.uid! } },
  };
  await fixture.custom.createNamespacedCustomObject({ ...REPORTS, namespace: fixture.testNamespace, body });
}

async function deleteTest(name: string): Promise<void> {
  await fixture.custom.deleteNamespacedCustomObject({ ...TESTS, namespace: fixture.testNamespace, name });
}

async function names(testName: string): Promise<string[]> {
  return (await listReports(fixture, testName)).map((r) => r.metadata.name).sort();
}

beforeAll(async () => {
  fixture = await createEngineFixture('cascade');
  kubeconfigPath = await rehearsalKubeconfig('report-cascade.kubeconfig');
  await start();
}, 180_000);

afterAll(async () => {
  await rehearsal?.stop();
  await fixture?.stop();
  await deleteNamespaces(fixture.admin, [fixture.source, fixture.testNamespace, fixture.veleroNamespace]);
});

describe('the report cascade (evidence archive off)', () => {
  const kept = uniqueTestName('kept');
  let keptTest: RestoreTest;

  it("deletes a deleted test's reports, which carry no ownerReference; other tests' reports stay", async () => {
    const gone = uniqueTestName('gone');
    const goneTest = await createRestoreTest(fixture, restoreTestBody(fixture, gone, {}));
    await trigger(fixture, gone);
    template = (await waitForReports(fixture, gone, 1))[0]!;
    // The writer's report: bound to its test by spec.testRef alone.
    expect(template.metadata.ownerReferences).toBeUndefined();
    expect(template.spec.testRef).toMatchObject({ name: gone, uid: goneTest.metadata.uid });
    await addReport(goneTest, 'x1');
    await addReport(goneTest, 'x2');
    keptTest = await createRestoreTest(fixture, restoreTestBody(fixture, kept, {}));
    await addReport(keptTest, 'k1');
    await addReport(keptTest, 'k2');
    expect(await names(gone)).toHaveLength(3);

    const started = performance.now();
    await deleteTest(gone);
    await waitFor(async () => (await names(gone)).length === 0, { timeoutMs: 30_000, description: "the deleted test's reports gone" });
    console.log(`report cascade: 3 reports deleted ${Math.round(performance.now() - started)} ms after their test`);
    expect(await names(kept)).toEqual([`${kept}-k1`, `${kept}-k2`]);
  }, 180_000);

  it('deletes the reports of an older test of the same name, never those of the re-created one', async () => {
    const name = uniqueTestName('again');
    const first = await createRestoreTest(fixture, restoreTestBody(fixture, name, {}));
    await addReport(first, 'old1');
    await deleteTest(name);
    const second = await createRestoreTest(fixture, restoreTestBody(fixture, name, {}));
    expect(second.metadata.uid).not.toBe(first.metadata.uid);
    await addReport(second, 'new1');
    await waitFor(async () => !(await names(name)).includes(`${name}-old1`), { timeoutMs: 30_000, description: "the older test's report gone" });
    await rehearsal!.cascade.pass(); // and a sweep leaves the new test's report alone
    expect(await names(name)).toEqual([`${name}-new1`]);
    expect(await names(kept)).toHaveLength(2);
  }, 120_000);

  it('migrates a report stored in the old form (an ownerReference to its test) at the start: the reference goes, the evidence still verifies', async () => {
    const name = uniqueTestName('legacy');
    const test = await createRestoreTest(fixture, restoreTestBody(fixture, name, {}));
    await trigger(fixture, name);
    const [signed] = await waitForReports(fixture, name, 1);
    await rehearsal!.stop();
    rehearsal = undefined;
    // As the writer stored reports before issue 17's fourth cut (a metadata change: the signed spec is immutable).
    const oldForm = [{ apiVersion: API_VERSION, kind: 'RestoreTest', name, uid: test.metadata.uid!, controller: true, blockOwnerDeletion: true }];
    await fixture.custom.patchNamespacedCustomObject(
      { ...REPORTS, namespace: fixture.testNamespace, name: signed!.metadata.name, body: { metadata: { ownerReferences: oldForm } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    const stored = async () => (await fixture.custom.getNamespacedCustomObject({ ...REPORTS, namespace: fixture.testNamespace, name: signed!.metadata.name })) as RestoreReport;
    expect((await stored()).metadata.ownerReferences).toEqual(oldForm);
    const server = await start();
    await waitFor(async () => (await stored()).metadata.ownerReferences === undefined, { timeoutMs: 30_000, description: 'the ownerReference removed' });
    const migrated = await waitFor(
      () => {
        const cached = server.cache.liveReport(`${fixture.testNamespace}/${signed!.metadata.name}`);
        return cached && cached.metadata.ownerReferences === undefined ? cached : undefined;
      },
      { description: 'the migrated report in the cache' },
    );
    expect(migrated.spec.evidence?.digest).toBe(signed!.spec.evidence?.digest);
    expect(server.evidence.verify(migrated)).toBe(true);
    // Now the cascade's, like every report written today: deleting the test removes it.
    await deleteTest(name);
    await waitFor(async () => (await names(name)).length === 0, { timeoutMs: 30_000, description: "the migrated report gone with its test" });
  }, 180_000);

  it('cleans up after a test deleted while no server ran, at the next start', async () => {
    await rehearsal!.stop();
    rehearsal = undefined;
    const name = uniqueTestName('offline');
    const test = await createRestoreTest(fixture, restoreTestBody(fixture, name, {}));
    await addReport(test, 'o1');
    await addReport(test, 'o2');
    await deleteTest(name);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await names(name)).toHaveLength(2); // nothing else removes them
    await start();
    await waitFor(async () => (await names(name)).length === 0, { timeoutMs: 30_000, description: 'the reports gone after the start' });
    expect(await names(kept)).toEqual([`${kept}-k1`, `${kept}-k2`]);
  }, 120_000);
});
