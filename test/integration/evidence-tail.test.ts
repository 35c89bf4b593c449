// Deleting the newest reports of a chain leaves links that are all intact; the RestoreTest's
// status.evidenceAnchor (written by the engine after each report) is what makes it detectable.
// On the real control plane: three runs, the anchor and metrics follow the chain, then the newest
// report is deleted and `kubectl restoretest verify` fails and names it, the compliance answer
// names the missing tail as an evidence exception, and both PDFs (read back) print it. The stored
// reports carry no managedFields (the writer clears them) and verify.
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Rehearsal } from '../../server/app/rehearsal.js';
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
import { REHEARSAL_NAMESPACE } from '../helpers/rehearsal-identity.js';
import { jwkOf, sign, vendorKey } from '../fixtures/evidence/licenses.js';
import { assertPoppler, pdftotext, writePdf } from '../fixtures/evidence/poppler.js';

let fixture: EngineFixture;
let rehearsal: Rehearsal;
let core: CoreV1Api;
const binDir = path.join(repoRoot, 'cmd/kubectl-restoretest/bin');
const LICENSE_SECRET = 'rehearsal-license';
const vendor = vendorKey('vendor-tail');

beforeAll(async () => {
  assertPoppler();
  fixture = await createEngineFixture('tail');
  core = fixture.admin.makeApiClient(CoreV1Api);
  // An enterprise license (for the PDFs) from a vendor key only this server trusts.
  const keyFile = path.join(repoRoot, 'test/.tmp/evidence-tail-vendor.jwk.json');
  mkdirSync(path.dirname(keyFile), { recursive: true });
  writeFileSync(keyFile, JSON.stringify(await jwkOf(vendor)));
  await deleteLicense();
  await core.createNamespacedSecret({
    namespace: REHEARSAL_NAMESPACE,
    body: {
      metadata: { name: LICENSE_SECRET, namespace: REHEARSAL_NAMESPACE },
      type: 'Opaque',
      stringData: { license: await sign(vendor, { tier: 'enterprise', customer: 'tail' }) },
    },
  });
  rehearsal = await startInProcess({
    kubeconfigPath: await rehearsalKubeconfig('evidence-tail.kubeconfig'),
    veleroNamespace: fixture.veleroNamespace,
    probeTargets: fixture.endpoints.targets,
    extra: { REHEARSAL_LICENSE_PUBLIC_KEYS: keyFile },
  });
}, 120_000);

async function deleteLicense(): Promise<void> {
  try {
    await core.deleteNamespacedSecret({ name: LICENSE_SECRET, namespace: REHEARSAL_NAMESPACE });
  } catch (error) {
    if ((error as { code?: number }).code !== 404) throw error;
  }
}

afterAll(async () => {
  if (core) await deleteLicense();
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
    const missing = `missing tail: the test's evidence anchor names ${newest.metadata.name} (sequence 3, sha256:${newest.spec.evidence!.digest.slice(7, 19)}), which is not in the set; the newest report present is ${reports[1]!.metadata.name} (sequence 2): 1 newest report(s) were deleted`;
    expect(tampered.stdout).toContain(`chain: ${missing}`);

    // Compliance: an evidence exception of the test's source namespace, named in the evidence.
    const origin = `http://127.0.0.1:${rehearsal.port()}`;
    const testKey = `${fixture.testNamespace}/${name}`;
    await waitFor(
      async () => {
        const response = await fetch(`${origin}/api/v1/compliance?framework=soc2&period=30`);
        const body = (await response.json()) as {
          controls: { id: string; status: string; evidence: string }[];
        };
        return body.controls.every(
          (control) =>
            control.status === 'at_risk' &&
            control.evidence.includes(
              `evidence exception: missing tail (newest reports deleted) of ${testKey}`,
            ),
        );
      },
      { timeoutMs: 20_000, description: 'compliance to name the missing tail' },
    );

    // Both PDFs print it in their integrity summaries (read back with pdftotext; compared without
    // white space, as a long name may wrap at a hyphen).
    const pdfText = async (url: string, file: string): Promise<string> => {
      const response = await fetch(origin + url);
      expect(response.status).toBe(200);
      const pdf = Buffer.from(await response.arrayBuffer());
      return pdftotext(writePdf(pdf, file), '-layout').replace(/\s+/g, '');
    };
    const compliancePdf = await pdfText('/api/v1/compliance/pdf?framework=soc2&period=30', 'tail-compliance');
    const dense = (text: string): string => text.replace(/\s+/g, '');
    expect(compliancePdf).toContain(dense('Evidence that did not verify'));
    expect(compliancePdf).toContain(dense(`${testKey}: ${missing}`));
    const testPdf = await pdfText(
      `/api/restore-tests/${name}/report.pdf?period=30&namespace=${fixture.testNamespace}`,
      'tail-test',
    );
    expect(testPdf).toContain(dense(`Evidence problem: ${testKey}: ${missing}`));
  }, 240_000);
});
