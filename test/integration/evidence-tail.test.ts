// Deleting the newest reports of a chain leaves links that are all intact; the RestoreTest's
// status.evidenceAnchor (written by the engine after each report) is what makes it detectable.
// On the real control plane: three runs, the anchor and metrics follow the chain, then the newest
// report is deleted and `kubectl restoretest verify` fails and names it. The stored reports carry
// no managedFields (the writer clears them) and verify.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Rehearsal } from '../../server/rehearsal.js';
import { repoRoot } from '../helpers/cluster-info.js';
import {
  createEngineFixture,
  createRestoreTest,
  getRestoreTest,
  restoreTestBody,
  trigger,
  uniqueTestName,
  waitForReports,
  type EngineFixture,
} from '../helpers/engine-fixture.js';
import { deleteNamespaces, testKubeconfigPath, waitFor } from '../helpers/kube.js';
import { rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';

let fixture: EngineFixture;
let rehearsal: Rehearsal;
const binDir = path.join(repoRoot, 'cmd/kubectl-restoretest/bin');

beforeAll(async () => {
  fixture = await createEngineFixture('tail');
  rehearsal = await startInProcess({
    kubeconfigPath: await rehearsalKubeconfig('evidence-tail.kubeconfig'),
    veleroNamespace: fixture.veleroNamespace,
    probeTargets: fixture.endpoints.targets,
  });
}, 120_000);

afterAll(async () => {
  await rehearsal?.stop();
  await fixture?.stop();
  await deleteNamespaces(fixture.admin, [fixture.source, fixture.testNamespace, fixture.veleroNamespace]);
});

/** `kubectl restoretest verify NAME` as a user runs it, against the in-process server. */
function verify(name: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const args = [
    'restoretest',
    'verify',
    name,
    '-n',
    fixture.testNamespace,
    '--server',
    `http://127.0.0.1:${rehearsal.port()}`,
  ];
  return new Promise((resolve) => {
    execFile(
      'kubectl',
      args,
      {
        env: {
          ...process.env,
          PATH: `${binDir}:${process.env.PATH}`,
          KUBECONFIG: testKubeconfigPath(),
          NO_COLOR: '1',
        },
        timeout: 120_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (error as { code?: unknown }).code : 0;
        resolve({ code: typeof code === 'number' ? code : 1, stdout, stderr });
      },
    );
  });
}

describe('the evidence anchor', () => {
  it('follows the chain, and a deleted newest report makes kubectl restoretest verify fail and name it', async () => {
    const name = uniqueTestName('tail');
    await createRestoreTest(fixture, restoreTestBody(fixture, name, {}));
    for (let run = 1; run <= 3; run++) {
      await trigger(fixture, name);
      await waitForReports(fixture, name, run);
    }
    const reports = (await waitForReports(fixture, name, 3)).sort(
      (a, b) => (a.spec.evidence?.sequence ?? 0) - (b.spec.evidence?.sequence ?? 0),
    );
    expect(reports.map((report) => report.spec.evidence?.sequence)).toEqual([1, 2, 3]);
    // The writer clears the managedFields entry a create leaves (it listed every field and cost the
    // apiserver as much memory as the report): none on the stored reports, and they still verify.
    for (const report of reports) {
      expect((report.metadata as { managedFields?: unknown[] }).managedFields ?? []).toEqual([]);
    }
    const newest = reports[2]!;
    expect((await getRestoreTest(fixture, name)).status?.evidenceAnchor).toEqual({
      sequence: 3,
      digest: newest.spec.evidence!.digest,
      report: newest.metadata.name,
    });
    const metrics = await (await fetch(`http://127.0.0.1:${rehearsal.port()}/metrics`)).text();
    const labels = `namespace="${fixture.testNamespace}",test="${name}"`;
    expect(metrics).toContain(`rehearsal_evidence_sequence{${labels}} 3`);
    expect(metrics).toContain(
      `rehearsal_evidence_anchor_info{${labels},digest="${newest.spec.evidence!.digest}"} 1`,
    );

    const intact = await verify(name);
    expect(intact.stdout).toContain('3/3 reports verified');
    expect(intact.code).toBe(0);

    await fixture.custom.deleteNamespacedCustomObject({
      group: 'rehearsal.dev',
      version: 'v1alpha1',
      namespace: fixture.testNamespace,
      plural: 'restorereports',
      name: newest.metadata.name,
    });
    await waitFor(() => rehearsal.cache.reportsOfTest(fixture.testNamespace, name).length === 2, {
      description: 'the server to see the deletion',
    });
    const tampered = await verify(name);
    expect(tampered.code).toBe(1);
    expect(tampered.stdout).toContain('2/2 reports verified; evidence does NOT verify');
    expect(tampered.stdout).toContain(
      `chain: missing tail: the test's evidence anchor names ${newest.metadata.name} (sequence 3, sha256:${newest.spec.evidence!.digest.slice(7, 19)}), which is not in the set; the newest report present is ${reports[1]!.metadata.name} (sequence 2): 1 newest report(s) were deleted`,
    );
  }, 240_000);
});
