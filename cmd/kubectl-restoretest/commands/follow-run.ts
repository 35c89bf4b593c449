// trigger --wait: follows the triggered run to its RestoreReport.
//
// Completion is decided through the Rehearsal API alone (GET /api/v1/tests/{name}: the phase has
// left Running and lastRunAt moved past the value it had when we triggered), and the result comes
// from the run's RestoreReport (GET /api/v1/reports?test=&latest=true), so --server with nothing
// but a token works. The API does not expose the run's stage, so for live progress the plugin
// also reads the RestoreTest itself from the Kubernetes API with the kubeconfig's credentials
// (status.currentRun.stage: Queued, Preparing, Restoring, Validating, Finalizing). Without a
// kubeconfig or without "get" on restoretests it says so once and shows the API's phase instead.
import type { TriggerOutcome } from '../api.js';
import { CliError } from '../errors.js';
import type { RestoreReport, TestResponse } from '../output/printers.js';
import { Progress } from '../output/progress.js';
import type { CommandContext, Session } from './command.js';

/** The part of a RestoreTest's status that shows a run's progress (crds/ is the source of truth). */
interface LiveRun {
  id: string;
  stage: string;
  sandboxNamespaces?: { source: string; sandbox: string }[];
  backup?: { name: string };
  restore?: { namespace: string; name: string };
  restoreCompletedAt?: string;
  restorePhase?: string;
  podsReadyAt?: string;
  failure?: { reason: string; message: string };
}

interface LiveTest {
  status?: { handledTrigger?: string; currentRun?: LiveRun };
}

/** What a run is doing, from its status.currentRun: restore → pods ready → checks → score. */
export function describeStage(live: LiveTest, request: string): string | undefined {
  const run = live.status?.currentRun;
  if (!run) return request && live.status?.handledTrigger !== request ? 'waiting for the engine to pick up the trigger' : undefined;
  const sandboxes = run.sandboxNamespaces?.map((entry) => entry.sandbox).join(', ');
  switch (run.stage) {
    case 'Queued':
      return 'queued: waiting for a free run slot';
    case 'Preparing':
      return sandboxes ? `preparing sandbox ${sandboxes}` : 'preparing the sandbox';
    case 'Restoring':
      if (run.restoreCompletedAt) return `restore ${run.restorePhase ?? 'done'}`;
      return `restoring backup ${run.backup?.name ?? ''}${sandboxes ? ` into ${sandboxes}` : ''}`.replace('backup  into', 'backup into');
    case 'Validating':
      return run.podsReadyAt ? 'pods ready; running health checks' : 'restored; waiting for pods to become ready';
    case 'Finalizing':
      return run.failure ? `run failed (${run.failure.reason}); writing the report` : 'checks done; scoring and writing the report';
    default:
      return run.stage;
  }
}

function finished(test: TestResponse, before: string): boolean {
  return test.phase !== 'Running' && test.lastRunAt !== '' && test.lastRunAt !== before;
}

export async function followRun(
  context: CommandContext,
  session: Session,
  outcome: TriggerOutcome,
  timeoutMs: number,
): Promise<RestoreReport> {
  const { io } = context;
  const name = outcome.test.name;
  const namespace = outcome.test.namespace;
  const before = outcome.test.lastRunAt;
  const deadline = io.now().getTime() + timeoutMs;
  const progress = Progress.forIo(io, `${namespace}/${name}`);
  let kube = session.connection.kube;
  let stage = '';
  let test = outcome.test;
  for (;;) {
    test = await session.api.getTest(name, namespace);
    if (finished(test, before)) break;
    let live: string | undefined;
    if (kube) {
      try {
        live = describeStage(await readLiveTest(kube, namespace, name), outcome.request);
      } catch (error) {
        kube = undefined;
        progress.note(`note: live stages unavailable (${(error as Error).message}); following the phase through the API`);
      }
    }
    stage = live ?? (test.phase === 'Running' ? 'running' : 'waiting for the engine to pick up the trigger');
    if (io.now().getTime() >= deadline) {
      progress.finish(stage);
      throw new CliError(`timed out after ${Math.round(timeoutMs / 1000)}s waiting for the run of ${namespace}/${name} (last stage: ${stage})`, [
        `the run goes on; see its result later with: kubectl restoretest reports ${name} -n ${namespace} --latest`,
      ]);
    }
    progress.update(stage);
    await io.sleep(context.pollIntervalMs);
  }
  const report = await runReport(context, session, test);
  progress.finish(`finished: ${report.spec.result}, score ${report.spec.score}`);
  return report;
}

async function readLiveTest(
  kube: NonNullable<Session['connection']['kube']>,
  namespace: string,
  name: string,
): Promise<LiveTest> {
  const response = await kube.get(
    `/apis/rehearsal.dev/v1alpha1/namespaces/${encodeURIComponent(namespace)}/restoretests/${encodeURIComponent(name)}`,
  );
  if (response.status === 403) throw new Error(`you need "get" on restoretests.rehearsal.dev in namespace ${namespace}`);
  if (!response.ok) throw new Error(`the Kubernetes API answered ${response.status} for the RestoreTest`);
  return (await response.json()) as LiveTest;
}

/** The report of the run that just finished (the API's caches may need a moment to show it). */
async function runReport(context: CommandContext, session: Session, test: TestResponse): Promise<RestoreReport> {
  let latest: RestoreReport | undefined;
  for (let attempt = 0; attempt < 20; attempt++) {
    [latest] = await session.api.listReports({ test: test.name, namespace: test.namespace, latest: true });
    if (latest && latest.spec.completedAt === test.lastRunAt) return latest;
    await context.io.sleep(Math.min(250, context.pollIntervalMs));
  }
  if (latest) return latest;
  throw new CliError(`the run of ${test.namespace}/${test.name} finished but its report is not visible yet`, [
    `kubectl restoretest reports ${test.name} -n ${test.namespace} --latest`,
  ]);
}
