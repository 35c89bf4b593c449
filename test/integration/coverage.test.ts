// Coverage on the real control plane: a namespace a Velero Backup covers is listed as untested
// until a RestoreTest for it passes, then as tested (GET /api/v1/coverage and the
// rehearsal_namespace_backed_up_untested gauge), read by Rehearsal under its own ServiceAccount.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import type { CoverageResponse } from '../../server/domain/read-models/coverage.js';
import {
  createEngineFixture,
  createRestoreTest,
  restoreTestBody,
  trigger,
  uniqueTestName,
  waitForReports,
  type EngineFixture,
} from '../helpers/engine-fixture.js';
import { deleteNamespaces } from '../helpers/kube.js';
import { rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';
import { shopChecks } from '../helpers/sample-app.js';

let fixture: EngineFixture;
let rehearsal: Rehearsal;
jest.setTimeout(200_000);

beforeAll(async () => {
  fixture = await createEngineFixture('coverage');
  rehearsal = await startInProcess({
    kubeconfigPath: await rehearsalKubeconfig('coverage.kubeconfig'),
    veleroNamespace: fixture.veleroNamespace,
    probeTargets: fixture.endpoints.targets,
    // Requests re-read Velero's objects at most every second.
    extra: { REHEARSAL_COVERAGE_REFRESH_SECONDS: '1' },
  });
}, 120_000);

afterAll(async () => {
  await rehearsal?.stop();
  await fixture?.stop();
  await deleteNamespaces(fixture.admin, [fixture.source, fixture.testNamespace, fixture.veleroNamespace]);
});

async function coverage(): Promise<CoverageResponse> {
  const response = await fetch(`http://127.0.0.1:${rehearsal.port()}/api/v1/coverage`);
  expect(response.status).toBe(200);
  return (await response.json()) as CoverageResponse;
}

async function gauge(namespace: string): Promise<string | undefined> {
  const text = await (await fetch(`http://127.0.0.1:${rehearsal.port()}/metrics`)).text();
  return text.split('\n').find((line) => line.startsWith(`rehearsal_namespace_backed_up_untested{namespace="${namespace}"}`));
}

describe('coverage', () => {
  it('lists a backed-up namespace without a test, and stops once a test for it passes', async () => {
    const before = await coverage();
    expect(before.namespaces).toEqual([
      expect.objectContaining({
        namespace: fixture.source,
        status: 'untested',
        backedUpBy: [`Backup/${fixture.backup}`],
        tests: [],
      }),
    ]);
    expect(await gauge(fixture.source)).toMatch(/ 1$/);

    const name = uniqueTestName('covered');
    await createRestoreTest(fixture, restoreTestBody(fixture, name, { healthChecks: { checks: shopChecks() } }));
    await trigger(fixture, name);
    const [report] = await waitForReports(fixture, name, 1, 150_000);
    expect(report!.spec.result).toBe('pass');

    const after = await coverage();
    expect(after.namespaces).toEqual([
      expect.objectContaining({
        namespace: fixture.source,
        status: 'tested',
        tests: [`${fixture.testNamespace}/${name}`],
        lastPassedAt: new Date(report!.spec.completedAt).toISOString(),
      }),
    ]);
    expect(after.untested).toBe(0);
    expect(await gauge(fixture.source)).toMatch(/ 0$/);
  });
});
