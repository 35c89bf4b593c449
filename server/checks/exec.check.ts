// exec: a command run in a container of a selected sandbox pod exits with the expected code
// (default 0), through the Kubernetes exec API (SandboxReader.exec).
//
// - One pod is used: the first Ready, running, non-terminating pod by name among those the
//   selector matches (like `kubectl exec deploy/x`); no Ready pod is `fail`.
// - Container: the configured one, else the pod's default-container annotation, else its first.
// - Messages name the program only, never its arguments: people put passwords in command lines.
//
// Testing note: unit-tested with a fake SandboxReader; test/integration/real-node-checks.test.ts
// runs it for real, in a restored container on the test cluster's real node (KWOK pods have no
// kubelet, and are never exec'd into). The real Exec wiring lives in
// server/checks/sandbox-reader.kube.ts.

import type { CheckExecutor } from './check.js';
import { describeError, error, fail, freshnessOutcome, isOutcome, pass, requireBlock, timedOut } from './check.js';
import type { PodSummary } from './sandbox-reader.js';
import { EXEC_STDOUT_LIMIT, toLabelSelector } from './sandbox-reader.js';

function describeCommand(command: readonly string[]): string {
  const extra = command.length - 1;
  return `"${command[0] ?? ''}"${extra > 0 ? ` (+${extra} argument${extra === 1 ? '' : 's'})` : ''}`;
}

export const runExecCheck: CheckExecutor = async (check, context) => {
  const spec = requireBlock(check, 'exec');
  if (isOutcome(spec)) return spec;
  const { command } = spec;
  if (
    !Array.isArray(command) ||
    command.length === 0 ||
    command.some((part) => typeof part !== 'string') ||
    command[0] === ''
  ) {
    return error('command must be a non-empty list of strings');
  }
  const expectedExitCode = spec.expectedExitCode ?? 0;
  if (!Number.isInteger(expectedExitCode) || expectedExitCode < 0 || expectedExitCode > 255) {
    return error(`expectedExitCode must be an integer 0-255, got ${String(expectedExitCode)}`);
  }
  const selector = toLabelSelector(spec.selector);
  const scope = `in ${context.namespace}${selector ? ` with selector ${selector}` : ''}`;

  let pods: PodSummary[];
  try {
    pods = await context.reader.listPods(context.namespace, spec.selector);
  } catch (thrown) {
    return error(`cannot list pods ${scope}: ${describeError(thrown)}`);
  }
  const pod = pods
    .filter((candidate) => candidate.ready && !candidate.terminating && candidate.phase === 'Running')
    .sort((a, b) => a.name.localeCompare(b.name))[0];
  if (!pod)
    return fail(`no Ready pod ${scope} to run ${describeCommand(command)} in (${pods.length} pods matched)`);

  const container = spec.container ?? pod.defaultContainer ?? pod.containers[0];
  if (!container) return error(`pod ${pod.name} has no containers`);
  if (!pod.containers.includes(container)) {
    return error(
      `pod ${pod.name} has no container "${container}" (containers: ${pod.containers.join(', ') || 'none'})`,
    );
  }
  const where = `${describeCommand(command)} in ${context.namespace}/${pod.name} container ${container}`;

  try {
    const { exitCode, stdout, stdoutTruncated } = await context.reader.exec(
      context.namespace,
      pod.name,
      container,
      command,
      context.signal,
    );
    if (exitCode === expectedExitCode && spec.freshness) {
      // Output cut at the limit is no timestamp (one is a few dozen bytes), and what was kept of it
      // is restored data: the message gives its size only.
      if (stdoutTruncated || Buffer.byteLength(stdout ?? '') > EXEC_STDOUT_LIMIT) {
        return fail(`${where} exited ${exitCode}, but its output is longer than ${EXEC_STDOUT_LIMIT} bytes, not a timestamp or Unix time: no RPO measured`);
      }
      return freshnessOutcome(`${where} exited ${exitCode}`, stdout ?? '');
    }
    if (exitCode === expectedExitCode) return pass(`${where} exited ${exitCode}`);
    return fail(`${where} exited ${exitCode}, expected ${expectedExitCode}`);
  } catch (thrown) {
    if (context.signal.aborted) return error(`${where}: ${timedOut(context, 'no exit status')}`);
    return error(`${where} could not run: ${describeError(thrown)}`);
  }
};
