// Issue 30 on the real node (test/cluster/node-up.sh): spec.logCollection decides which container
// logs a failed run's diagnosis keeps, and the kubelet gives them. The source runs a Deployment
// whose init container prints a known line and exits 0, and whose container prints a known line,
// a fake secret (password=hunter2, a bearer token) and an error, then exits 3: restored by the
// engine into a sandbox (the Velero simulator, test/velero: NOT Velero), it crash-loops on the real
// node, the default pods check fails the run, and the diagnosis (read through the API, as
// `kubectl restoretest diagnose` reads it) must hold:
//   - the container's log from its PREVIOUS instance (the kubelet's --previous), marked previous,
//     with the known line;
//   - the init container's log, marked init, with its line;
//   - the Warning events of the sandbox (the kubelet's BackOff);
//   - the fake secret redacted in every line kept (and nowhere in the answer).
// Where this host cannot run a node the suite is skipped with the reason printed; where the node
// should have started and did not, it fails.
import { afterAll, beforeAll, expect, it, jest } from '@jest/globals';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import type { RunDiagnosis } from '../../server/domain/diagnosis/diagnosis.js';
import type { RestoreReport } from '../../server/domain/resources/resources.js';
import {
  createEngineFixture,
  createRestoreTest,
  restoreTestBody,
  trigger,
  uniqueTestName,
  waitForReports,
  type EngineFixture,
} from '../helpers/engine-fixture.js';
import { createNamespace, deleteNamespaces, testKubeConfig, uniqueName, waitFor, waitForNamespacesGone } from '../helpers/kube.js';
import { addRealNodeWorkload } from '../helpers/real-node-app.js';
import { realNodeStatus } from '../helpers/real-node.js';
import { describeOnRealNode } from '../helpers/real-node-suite.js';
import { rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';
import { createBackup } from '../velero/simulator.js';

jest.setTimeout(300_000);

const kubeConfig: KubeConfig = testKubeConfig();
const node = await realNodeStatus(kubeConfig);

const INIT_LINE = 'init: warmed the ledger cache';
const WORKER_LINE = 'worker starting: opening the ledger';
const FATAL_LINE = 'fatal: cannot open the ledger: connection refused';
/** A fake secret the worker prints, as applications print their configuration. */
const SECRET = 'hunter2';
const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJsZWRnZXIifQ.c2lnbmVkLWZha2U';
const LOG_COLLECTION = { lines: 50, containers: 'failing' as const, initContainers: true, previous: true, events: true };

describeOnRealNode('test/integration/real-node-log-collection.test.ts', node, 'log collection of a run restored onto the real node', () => {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const crashing = uniqueName('rn-logs');
  const cleanup: string[] = [crashing];
  let fixture: EngineFixture;
  let rehearsal: Rehearsal;
  let report: RestoreReport;
  let diagnosis: RunDiagnosis;
  const testName = uniqueTestName('rn-logs');

  beforeAll(async () => {
    if (!node.available) throw new Error(`the real node should be running and is not: ${node.reason}`);
    const started = Date.now();
    fixture = await createEngineFixture('rnlog');
    cleanup.push(fixture.source, fixture.testNamespace, fixture.veleroNamespace);
    await createNamespace(kubeConfig, crashing);
    const crash = [
      `echo '${WORKER_LINE}'`,
      `echo 'config: db_host=ledger-db password=${SECRET} user=ledger'`,
      `echo 'GET /ledger Authorization: Bearer ${TOKEN}'`,
      `echo '${FATAL_LINE}' >&2`,
      'exit 3',
    ].join('; ');
    await addRealNodeWorkload(kubeConfig, crashing, 'worker', {
      command: ['sh', '-c', crash],
      initCommand: ['sh', '-c', `echo '${INIT_LINE}'`],
      service: false,
    });
    await createBackup(kubeConfig, { name: `${crashing}-b`, namespaces: [crashing], veleroNamespace: fixture.veleroNamespace });
    rehearsal = await startInProcess(
      { kubeconfigPath: await rehearsalKubeconfig('real-node-log-collection.kubeconfig'), veleroNamespace: fixture.veleroNamespace },
      // Long enough for the kubelet to restart the worker at least once (back-off 10 s, then 20 s):
      // the previous instance's log exists when the diagnosis is collected.
      { podReadyTimeoutSeconds: 60 },
    );
    await createRestoreTest(
      fixture,
      restoreTestBody(fixture, testName, {
        backupSource: { backupName: `${crashing}-b`, namespaces: [{ name: crashing }], providerNamespace: fixture.veleroNamespace },
        logCollection: LOG_COLLECTION,
      }),
    );
    await trigger(fixture, testName);
    [report] = (await waitForReports(fixture, testName, 1, 240_000)) as [RestoreReport];
    cleanup.push(...report.spec.sandboxNamespaces);
    diagnosis = await waitFor(
      async () => {
        const response = await fetch(
          `http://127.0.0.1:${rehearsal.port()}/api/v1/tests/${testName}/diagnosis?namespace=${fixture.testNamespace}&run=${report.spec.runId}`,
        );
        return response.status === 200 ? ((await response.json()) as RunDiagnosis) : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500, description: 'the diagnosis of the crash-looping run' },
    );
    console.log(`[observe] diagnosis logs: ${JSON.stringify(diagnosis.logs)}`);
    console.log(`[timing] real-node-log-collection: set-up and the run took ${Math.round((Date.now() - started) / 1000)} s`);
  }, 300_000);

  afterAll(async () => {
    await rehearsal?.stop();
    await fixture?.stop();
    await deleteNamespaces(kubeConfig, cleanup);
    if (fixture) await waitForNamespacesGone(kubeConfig, [fixture.testNamespace], 150_000);
  }, 200_000);

  it('the run fails and its diagnosis names the settings it collected with', () => {
    expect(report.spec.result).toBe('fail');
    expect(diagnosis.logCollection).toEqual(LOG_COLLECTION);
    expect(diagnosis.redacted).toBeFalsy();
  });

  it("holds the previous instance's log of the crash-looping container, with its known lines", async () => {
    const sandbox = report.spec.sandboxNamespaces[0]!;
    const previous = diagnosis.logs.find((log) => log.namespace === sandbox && log.container === 'worker' && log.previous === true);
    expect(previous?.pod).toMatch(/^worker-/);
    expect(previous?.init).toBeFalsy();
    expect(previous?.lines).toEqual(expect.arrayContaining([WORKER_LINE, FATAL_LINE]));
    // The kubelet agrees that there was an earlier instance, and that it exited 3.
    const pod = await core.readNamespacedPod({ namespace: sandbox, name: previous!.pod });
    const status = pod.status?.containerStatuses?.find((entry) => entry.name === 'worker');
    expect(status?.restartCount).toBeGreaterThan(0);
    expect(status?.lastState?.terminated).toMatchObject({ exitCode: 3 });
  });

  it("holds the init container's log, marked init", () => {
    const init = diagnosis.logs.find((log) => log.container === 'init-worker');
    expect(init).toMatchObject({ init: true, lines: [INIT_LINE] });
  });

  it('holds the Warning events of the sandbox (the kubelet backing off the worker)', () => {
    expect(diagnosis.events).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ reason: 'BackOff', object: expect.stringMatching(/^Pod\/worker-/), message: expect.stringMatching(/^Back-off restarting failed container worker/) }),
      ]),
    );
  });

  it('redacts the fake secret and the token in every line it keeps', () => {
    const answer = JSON.stringify(diagnosis);
    expect(answer).not.toContain(SECRET);
    expect(answer).not.toContain(TOKEN);
    const workerLines = diagnosis.logs.filter((log) => log.container === 'worker').flatMap((log) => log.lines);
    expect(workerLines).toEqual(
      expect.arrayContaining(['config: db_host=ledger-db password=[redacted] user=ledger', 'GET /ledger Authorization: [redacted] [redacted]']),
    );
  });
});
