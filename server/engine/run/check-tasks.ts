// The health checks of runs in progress, each in a background task: a reconcile only starts one
// and later picks up its results, so no reconcile ever waits for a check. Every task is tied to
// the leadership term that started it: when leadership is lost, abortAll() stops them at once
// (the check runner aborts probes in flight), and the next leader starts the checks again from the
// run's durable stage (Validating).
import type { Logger } from 'pino';
import { runChecks } from '../../checks/check-runner.js';
import { checksForRun } from '../../checks/default-checks.js';
import { resolveSubset } from '../../domain/run/restore-subset.js';
import type { SandboxReader } from '../../checks/sandbox-reader.js';
import type { TargetResolver } from '../../checks/target-resolver.js';
import { keyOf } from '../../domain/run/run-queue.js';
import type { ChecksObservation } from '../../domain/run/run-observations.js';
import { API_VERSION, type CheckResult, type CurrentRun, type HealthCheck, type HealthCheckPolicy, type RestoreTest } from '../../domain/resources/resources.js';

export interface CheckTaskResult {
  results: CheckResult[];
  completedAt: Date;
}

interface CheckTask {
  runId: string;
  result?: CheckTaskResult;
  controller: AbortController;
}

/** The checks a test configured (inline, else its policy); undefined = the built-in defaults. */
export function configuredChecks(
  test: RestoreTest,
  policyOf: (namespace: string, name: string) => HealthCheckPolicy | undefined,
): HealthCheck[] | undefined {
  if (test.spec.healthChecks?.checks?.length) return test.spec.healthChecks.checks;
  const policyName = test.spec.healthCheckPolicy;
  if (!policyName) return undefined;
  const policy = policyOf(test.metadata.namespace ?? '', policyName);
  // A missing policy must not silently fall back to the lenient default checks.
  if (!policy) {
    return [
      {
        name: `policy/${policyName}`,
        kind: 'resourceExists',
        resourceExists: { apiVersion: API_VERSION, kind: 'HealthCheckPolicy', name: policyName },
      },
    ];
  }
  return policy.spec.checks;
}

export interface CheckTasksDeps {
  reader: SandboxReader;
  targets: TargetResolver;
  log: Logger;
  now: () => Date;
  /** The image of the file checks' pods (config REHEARSAL_FILE_CHECK_IMAGE). */
  fileCheckImage?: string;
  /** Called when a task ends, so the run's next step is taken at once. */
  onDone: (key: string) => void;
  /** Replaces runChecks (unit tests). */
  run?: typeof runChecks;
}

export class CheckTasks {
  private readonly tasks = new Map<string, CheckTask>();

  constructor(private readonly deps: CheckTasksDeps) {}

  state(test: RestoreTest, run: CurrentRun): ChecksObservation {
    const task = this.tasks.get(keyOf(test));
    if (!task || task.runId !== run.id) return { state: 'not-started' };
    return task.result ? { state: 'done' } : { state: 'running' };
  }

  /** The results of a finished task (undefined: none, e.g. the run failed before validating). */
  result(test: RestoreTest, run: CurrentRun): CheckTaskResult | undefined {
    const task = this.tasks.get(keyOf(test));
    return task?.runId === run.id ? task.result : undefined;
  }

  start(test: RestoreTest, run: CurrentRun, checks: HealthCheck[] | undefined): void {
    const key = keyOf(test);
    this.forget(key);
    const controller = new AbortController();
    const task: CheckTask = { runId: run.id, controller };
    this.tasks.set(key, task);
    const namespaces = run.sandboxNamespaces ?? [];
    const run$ = this.deps.run ?? runChecks;
    void run$(checksForRun(checks, namespaces, resolveSubset(test.spec.backupSource)), {
      reader: this.deps.reader,
      targets: this.deps.targets,
      namespaces,
      signal: controller.signal,
      ...(this.deps.fileCheckImage ? { fileCheckImage: this.deps.fileCheckImage } : {}),
    })
      .catch((error: unknown) => {
        this.deps.log.error({ err: error, test: key }, 'check runner failed');
        return [] as CheckResult[];
      })
      .then((results) => {
        // An aborted task belongs to a term (or run) that is over: its results are not evidence.
        if (controller.signal.aborted || this.tasks.get(key) !== task) return;
        task.result = { results, completedAt: this.deps.now() };
        this.deps.onDone(key);
      });
  }

  /** Stops and drops the task of a test (run over, test deleted). */
  forget(key: string): void {
    this.tasks.get(key)?.controller.abort();
    this.tasks.delete(key);
  }

  /** Leadership lost or the server stops: every check in flight is aborted. */
  abortAll(): void {
    for (const key of [...this.tasks.keys()]) this.forget(key);
  }

  get size(): number {
    return this.tasks.size;
  }
}
