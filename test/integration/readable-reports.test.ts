// Reports kubectl can read (issue 30), on the real control plane: Rehearsal (in-process, under its
// own ServiceAccount) runs a test to a report, and an auditor who holds only the shipped
// rehearsal-viewer role in the test's namespace reads it with the real kubectl — never through
// Rehearsal's API — and finds the backup that was restored and which checks passed or failed:
// `kubectl get restorereports <name> -o yaml`, the same selected by test with
// `--field-selector spec.test=<test>`, and the Backup and Checks columns of `kubectl get rrep`.
// What kubectl shows is still signed evidence: the object read that way verifies with the
// published key, and the two readable fields are what the signed report says.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { reportEvidenceProblems } from '../../protocol/evidence/report-chain.js';
import { expandStoredReport } from '../../protocol/stored-report/stored-report.js';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import type { RestoreReport } from '../../server/domain/resources/resources.js';
import { parsePublishedKeys } from '../../server/evidence/published-keys.js';
import { publicKeyRing } from '../../server/evidence/signing-key.js';
import {
  createEngineFixture,
  createRestoreTest,
  restoreTestBody,
  trigger,
  uniqueTestName,
  waitForReports,
  type EngineFixture,
} from '../helpers/engine-fixture.js';
import { kubectl } from '../helpers/install-crds.js';
import { deleteNamespaces, testKubeconfigPath, uniqueName } from '../helpers/kube.js';
import { REHEARSAL_NAMESPACE, rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';
import { shopChecks } from '../helpers/sample-app.js';

/** The auditor: a user with the shipped read-only role in the test's namespace, and nothing else. */
const AUDITOR = uniqueName('auditor', 40);

let fixture: EngineFixture;
let rehearsal: Rehearsal;

// As engine-runs.test.ts: a run on a loaded 2-core machine, then the reads.
jest.setTimeout(200_000);

beforeAll(async () => {
  fixture = await createEngineFixture('readable');
  rehearsal = await startInProcess({
    kubeconfigPath: await rehearsalKubeconfig('readable-reports.kubeconfig'),
    veleroNamespace: fixture.veleroNamespace,
    probeTargets: fixture.endpoints.targets,
  });
  await fixture.admin.makeApiClient(RbacAuthorizationV1Api).createNamespacedRoleBinding({
    namespace: fixture.testNamespace,
    body: {
      metadata: { name: `${AUDITOR}-viewer` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'rehearsal-viewer' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: AUDITOR }],
    },
  });
}, 120_000);

afterAll(async () => {
  await rehearsal?.stop();
  await fixture?.stop();
  await deleteNamespaces(fixture.admin, [fixture.source, fixture.testNamespace, fixture.veleroNamespace]);
});

/** kubectl as the auditor (impersonated by the test cluster's administrator, with the auditor's RBAC). */
function auditorKubectl(args: string[]): string {
  return kubectl(testKubeconfigPath(), [`--as=${AUDITOR}`, '-n', fixture.testNamespace, ...args]);
}

interface StoredSpec {
  backupName?: string;
  checkSummary?: string;
  details?: string;
}

/** Every trusted key as an auditor gets it: from the published ConfigMap, not from the server. */
async function publishedRing(): Promise<ReturnType<typeof publicKeyRing>> {
  const configMap = await fixture.admin
    .makeApiClient(CoreV1Api)
    .readNamespacedConfigMap({ name: 'rehearsal-evidence-public-keys', namespace: REHEARSAL_NAMESPACE });
  const { document } = parsePublishedKeys(configMap.data?.['keys.json']);
  return publicKeyRing([document.current!, ...document.retired].map((key) => key.publicKeyPem));
}

describe('a report read with kubectl alone', () => {
  let testName: string;
  let report: RestoreReport;

  beforeAll(async () => {
    testName = uniqueTestName('readable');
    // The restored orders table holds 3 rows: expecting 4 fails the (critical) data check, and the
    // other three checks pass.
    await createRestoreTest(fixture, restoreTestBody(fixture, testName, { healthChecks: { checks: shopChecks({ expectedOrders: '4' }) } }));
    await trigger(fixture, testName);
    const [written] = await waitForReports(fixture, testName, 1, 150_000);
    report = written!;
  }, 180_000);

  it('shows the backup restored and the checks in one line in `kubectl get restorereports <name> -o yaml`', async () => {
    const yaml = auditorKubectl(['get', 'restorereports', report.metadata.name, '-o', 'yaml']);
    const stored = parse(yaml) as RestoreReport & { spec: StoredSpec };
    expect(stored.spec.backupName).toBe(fixture.backup);
    expect(stored.spec.checkSummary).toBe('3/4 passed; failed: orders-present');
    // Plain fields, not inside the compressed details.
    expect(yaml).toContain(`backupName: ${fixture.backup}`);
    expect(yaml).toMatch(/checkSummary: ['"]?3\/4 passed; failed: orders-present/);
    expect(stored.spec.details).toMatch(/^z1:/);
    // What kubectl shows is what the signed report says, and the object as kubectl read it verifies.
    const expanded = expandStoredReport(stored);
    expect(expanded.spec.backup.name).toBe(stored.spec.backupName);
    expect(expanded.spec.checks.map((check) => [check.name, check.status])).toEqual([
      ['web-pods', 'pass'],
      ['web-health', 'pass'],
      ['orders-present', 'fail'],
      ['credentials-restored', 'pass'],
    ]);
    expect(reportEvidenceProblems(stored, await publishedRing())).toEqual([]);
    // Edited in the YAML, either field breaks the signature.
    const edited = { ...stored, spec: { ...stored.spec, checkSummary: '4/4 passed' } };
    expect(reportEvidenceProblems(edited, await publishedRing()).join('\n')).toContain('digest mismatch');
  });

  it('selects the test\'s reports with --field-selector spec.test=<test> and shows the same fields', () => {
    const list = parse(auditorKubectl(['get', 'restorereports', '--field-selector', `spec.test=${testName}`, '-o', 'yaml'])) as {
      items: (RestoreReport & { spec: StoredSpec })[];
    };
    expect(list.items.map((item) => [item.metadata.name, item.spec.backupName, item.spec.checkSummary])).toEqual([
      [report.metadata.name, fixture.backup, '3/4 passed; failed: orders-present'],
    ]);
    // Another test's name selects nothing.
    expect(auditorKubectl(['get', 'rrep', '--field-selector', `spec.test=${testName}-other`, '-o', 'name']).trim()).toBe('');
  });

  it('shows them as the Backup and Checks columns of `kubectl get rrep`', () => {
    const [header, ...rows] = auditorKubectl(['get', 'rrep', '--field-selector', `spec.test=${testName}`]).trimEnd().split('\n');
    const start = (column: string): number => header!.search(new RegExp(`(^|\\s)${column}(\\s|$)`)) + 1;
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    const backup = row.slice(start('BACKUP'), start('RESULT')).trim();
    const checks = row.slice(start('CHECKS'), start('RTO')).trim();
    expect([backup, checks]).toEqual([fixture.backup, '3/4 passed; failed: orders-present']);
  });
});
