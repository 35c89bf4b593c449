// Issue 35 on the real node (test/cluster/node-up.sh): a whole Rehearsal run — backup, restore by
// the engine into a sandbox, checks, report, diagnosis — whose restored pods are real containers.
// The backup tool is the Velero simulator (test/velero: NOT Velero): it restores the Deployments
// and ConfigMaps of the backup through the API, pinned to the real node as their source was, and
// the kubelet runs them. Rehearsal runs in-process under its own ServiceAccount and RBAC, without
// REHEARSAL_PROBE_TARGETS (no check here dials anything from the host).
//   - exec checks run in the restored container, through the apiserver and the kubelet: one whose
//     command finds the restored data passes, one whose command gets a 500 from the restored
//     server fails, and the same command run by hand shows the output that decided it;
//   - a restored container that crash-loops ends in a failed report whose diagnosis holds the
//     container's real log tail (from the kubelet) and the kubelet's reason and Back-off event.
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
import { addRealNodeWorkload, readyPodOf } from '../helpers/real-node-app.js';
import { execInPod, realNodeStatus } from '../helpers/real-node.js';
import { describeOnRealNode } from '../helpers/real-node-suite.js';
import { rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';
import { createBackup } from '../velero/simulator.js';

jest.setTimeout(300_000);

const kubeConfig: KubeConfig = testKubeConfig();
const node = await realNodeStatus(kubeConfig);

/** What the crashing worker says before it exits 3, on stdout and stderr. */
const CRASH_LINES = ['worker starting: loading the ledger', 'fatal: cannot open the ledger: connection refused'];
/** The failing exec check's command: a GET of the restored server's /broken, which answers 500. */
const GET_BROKEN = `printf 'GET /broken HTTP/1.0\\r\\n\\r\\n' | nc -w 3 127.0.0.1 8080`;

describeOnRealNode('test/integration/real-node-checks.test.ts', node, 'checks and diagnoses of a run restored onto the real node', () => {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const healthy = uniqueName('rn-ledger');
  const crashing = uniqueName('rn-worker');
  const cleanup: string[] = [healthy, crashing];
  let fixture: EngineFixture;
  let rehearsal: Rehearsal;
  let execReport: RestoreReport;
  let crashReport: RestoreReport;
  const execTest = uniqueTestName('rn-exec');
  const crashTest = uniqueTestName('rn-crash');

  beforeAll(async () => {
    if (!node.available) throw new Error(`the real node should be running and is not: ${node.reason}`);
    const started = Date.now();
    fixture = await createEngineFixture('rnchk');
    cleanup.push(fixture.source, fixture.testNamespace, fixture.veleroNamespace);
    await createNamespace(kubeConfig, healthy);
    await core.createNamespacedConfigMap({ namespace: healthy, body: { metadata: { name: 'ledger' }, data: { rows: '3' } } });
    await addRealNodeWorkload(kubeConfig, healthy, 'web', { configMap: 'ledger' });
    await createNamespace(kubeConfig, crashing);
    const crash = `echo '${CRASH_LINES[0]}'; echo '${CRASH_LINES[1]}' >&2; exit 3`;
    await addRealNodeWorkload(kubeConfig, crashing, 'worker', { command: ['sh', '-c', crash], service: false });
    // The source's web server is up: what is backed up works in production.
    await readyPodOf(kubeConfig, healthy, 'web');
    for (const namespace of [healthy, crashing]) {
      await createBackup(kubeConfig, { name: `${namespace}-b`, namespaces: [namespace], veleroNamespace: fixture.veleroNamespace });
    }
    rehearsal = await startInProcess(
      { kubeconfigPath: await rehearsalKubeconfig('real-node-checks.kubeconfig'), veleroNamespace: fixture.veleroNamespace },
      { podReadyTimeoutSeconds: 60 },
    );
    const source = (namespace: string) => ({
      backupName: `${namespace}-b`,
      namespaces: [{ name: namespace }],
      providerNamespace: fixture.veleroNamespace,
    });
    await createRestoreTest(
      fixture,
      restoreTestBody(fixture, execTest, {
        backupSource: source(healthy),
        healthChecks: {
          checks: [
            {
              name: 'ledger-restored',
              kind: 'exec',
              exec: { selector: { app: 'web' }, command: ['sh', '-c', 'test "$(cat /etc/ledger/rows)" = 3'] },
            },
            {
              name: 'broken-page-ok',
              kind: 'exec',
              exec: { selector: { app: 'web' }, command: ['sh', '-c', `${GET_BROKEN} | grep -q ' 200 OK'`] },
            },
          ],
        },
      }),
    );
    // No checks configured: the default pods check, which the crash loop fails.
    await createRestoreTest(fixture, restoreTestBody(fixture, crashTest, { backupSource: source(crashing) }));
    await Promise.all([trigger(fixture, execTest), trigger(fixture, crashTest)]);
    [[execReport], [crashReport]] = (await Promise.all([
      waitForReports(fixture, execTest, 1, 240_000),
      waitForReports(fixture, crashTest, 1, 240_000),
    ])) as [[RestoreReport], [RestoreReport]];
    cleanup.push(...execReport.spec.sandboxNamespaces, ...crashReport.spec.sandboxNamespaces);
    console.log(`[timing] real-node-checks: set-up and both runs took ${Math.round((Date.now() - started) / 1000)} s`);
  }, 300_000);

  afterAll(async () => {
    await rehearsal?.stop();
    await fixture?.stop();
    await deleteNamespaces(kubeConfig, cleanup);
    // Wait until its tests and reports are gone: a deleted test's reports still in a terminating
    // namespace are archived by the next suite's server (evidence-archive counts its segments).
    if (fixture) await waitForNamespacesGone(kubeConfig, [fixture.testNamespace], 150_000);
  }, 200_000);

  it('an exec check runs in the restored container on the real node, and what the command finds decides it', async () => {
    const checks = Object.fromEntries(execReport.spec.checks.map((check) => [check.name, check]));
    const sandbox = execReport.spec.sandboxNamespaces[0]!;
    expect(checks['ledger-restored']).toMatchObject({
      status: 'pass',
      message: expect.stringMatching(new RegExp(`^"sh" \\(\\+2 arguments\\) in ${sandbox}/web-[a-z0-9-]+ container web exited 0$`)),
    });
    expect(checks['broken-page-ok']).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/container web exited 1, expected 0$/),
    });
    expect(execReport.spec.result).not.toBe('pass');
    // The pod the checks ran in: the restored copy, a real container on the real node.
    const podName = /in [a-z0-9-]+\/(web-[a-z0-9-]+) container/.exec(String(checks['ledger-restored']?.message))?.[1];
    const pod = await core.readNamespacedPod({ namespace: sandbox, name: podName ?? '' });
    expect(pod.spec?.nodeName).toBe(node.available ? node.nodeName : '');
    expect(pod.status?.containerStatuses?.[0]?.containerID).toMatch(/^containerd:\/\//);
    // The output that decided the failing check, read the same way: the restored server's 500.
    const answer = await execInPod(kubeConfig, sandbox, podName!, 'web', ['sh', '-c', GET_BROKEN]);
    expect(answer.stdout).toMatch(/^HTTP\/1\.[01] 500 /);
    const data = await execInPod(kubeConfig, sandbox, podName!, 'web', ['cat', '/etc/ledger/rows']);
    expect(data).toEqual({ exitCode: 0, stdout: '3', stderr: '' });
  });

  it("a restored container that crash-loops: the report fails, and its diagnosis holds the real log tail and the kubelet's reason", async () => {
    expect(crashReport.spec.result).toBe('fail');
    const sandbox = crashReport.spec.sandboxNamespaces[0]!;
    const pods = crashReport.spec.checks.find((check) => check.name === `default/pods-ready/${crashing}`);
    expect(pods).toMatchObject({ status: 'fail', message: expect.stringContaining('worker-') });
    const diagnosis = await waitFor(
      async () => {
        const response = await fetch(
          `http://127.0.0.1:${rehearsal.port()}/api/v1/tests/${crashTest}/diagnosis?namespace=${fixture.testNamespace}&run=${crashReport.spec.runId}`,
        );
        return response.status === 200 ? ((await response.json()) as RunDiagnosis) : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500, description: 'the diagnosis of the crash-looping run' },
    );
    console.log(`[observe] diagnosis: ${JSON.stringify({ pods: diagnosis.pods, logs: diagnosis.logs, hints: diagnosis.hints.map((h) => h.code) })}`);
    // The log tail the kubelet kept: both lines the container wrote (stdout and stderr), not made up.
    const log = diagnosis.logs.find((entry) => entry.namespace === sandbox && entry.container === 'worker');
    expect(log?.pod).toMatch(/^worker-/);
    expect(log?.lines).toEqual(expect.arrayContaining(CRASH_LINES));
    // The kubelet's own words: the container exited with an Error and was restarted, and it backs off.
    const container = diagnosis.pods.find((pod) => pod.name === log?.pod)?.containers.find((entry) => entry.name === 'worker');
    expect(container?.restartCount).toBeGreaterThan(0);
    expect([container?.reason, container?.lastTerminationReason]).toContain('Error');
    expect(diagnosis.events).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ reason: 'BackOff', object: `Pod/${log?.pod}`, message: expect.stringMatching(/^Back-off restarting failed container worker/) }),
      ]),
    );
    // The kubelet's pod status read back now agrees (a crash loop, exit code 3).
    const pod = await core.readNamespacedPod({ namespace: sandbox, name: log!.pod });
    const status = pod.status?.containerStatuses?.[0];
    expect(status?.lastState?.terminated).toMatchObject({ exitCode: 3, reason: 'Error' });
  });
});
