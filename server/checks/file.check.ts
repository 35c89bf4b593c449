// file: a file on a restored claim exists (or not) and has the size, SHA-256 and sentinel the check
// gives; with freshness, its modification time (or its content) is the newest data's time, from
// which the run's RPO is measured (domain/run/rpo.ts). Decision 0020.
//
// - Read by a short-lived pod in the sandbox (file-check-pod.ts: read-only claim and root
//   filesystem, no token, the restored pod's node and user, a deadline), for claims whose pods
//   have no shell; the pod is deleted afterwards in every case (SandboxReader.runProbePod).
// - Messages name the claim, the path and what differed (size, the first 12 hex digits of the
//   SHA-256, expected and actual); never the file's content. A sentinel is named (it is the
//   check's own text), shortened.
// - Status: the findings differ from the expectation → fail; the pod could not run, its output is
//   not the script's, or the check is misconfigured → error.

import type { FileCheck } from '../domain/resources/resources.js';
import type { CheckExecutor, CheckOutcome } from './check.js';
import { describeError, error, fail, freshnessOutcome, isOutcome, pass, requireBlock, timedOut, truncate } from './check.js';
import {
  buildFileCheckPod,
  DEFAULT_FILE_CHECK_IMAGE,
  fileCheckPodName,
  parseFileCheckOutput,
  pathProblem,
  pickClaimUser,
  type FileFindings,
} from './file-check-pod.js';
import type { ClaimUser } from './sandbox-reader.js';

const SHA256 = /^[0-9a-f]{64}$/;
const HASH_SHOWN = 12;
/** Seconds the pod's own deadline leaves before the check's timeout (to be read and deleted). */
const DEADLINE_MARGIN_SECONDS = 3;

function configurationProblem(spec: FileCheck): string | undefined {
  if (!spec.claim || typeof spec.claim !== 'string') return 'claim is required';
  const problem = pathProblem(spec.path);
  if (problem) return problem;
  if (spec.sha256 !== undefined && !SHA256.test(spec.sha256)) return 'sha256 must be 64 lowercase hex digits';
  if (spec.size !== undefined && (!Number.isSafeInteger(spec.size) || spec.size < 0)) return 'size must be a non-negative integer';
  if (spec.contains !== undefined && (spec.contains === '' || /[\0\n\r]/.test(spec.contains))) return 'contains must be a non-empty single line';
  const asserts = spec.size !== undefined || spec.sha256 !== undefined || spec.contains !== undefined || spec.freshness === true;
  if (spec.exists === false && asserts) return 'exists: false cannot be combined with size, sha256, contains or freshness';
  if (spec.freshnessSource !== undefined && spec.freshnessSource !== 'modificationTime' && spec.freshnessSource !== 'content')
    return 'freshnessSource must be modificationTime or content';
  return undefined;
}

const shortHash = (hash: string): string => `${hash.slice(0, HASH_SHOWN)}…`;

/** The findings against the expectation: pass, fail (naming what differed) or error. */
function judgeFindings(spec: FileCheck, findings: FileFindings, where: string): CheckOutcome {
  const expectAbsent = spec.exists === false;
  if (!findings.exists) return expectAbsent ? pass(`${where} does not exist, as expected`) : fail(`${where} does not exist`);
  if (expectAbsent) return fail(`${where} exists (a ${findings.type === 'dir' ? 'directory' : findings.type}), expected it not to`);
  if (findings.type === 'symlink') return fail(`${where} is a symbolic link; the file check reads only files and directories on the volume itself`);
  const readsContent = spec.size !== undefined || spec.sha256 !== undefined || spec.contains !== undefined || spec.freshnessSource === 'content';
  if (findings.type !== 'file' && readsContent)
    return fail(`${where} is ${findings.type === 'dir' ? 'a directory' : 'not a regular file'}, expected a file`);
  if (findings.type === 'file' && findings.readable === false)
    return error(`${where} is not readable by the check's pod (it runs as the restored pod's user)`);

  const differences: string[] = [];
  const kept: string[] = [];
  if (spec.size !== undefined) {
    if (findings.size === undefined) return error(`${where}: its size could not be read`);
    if (findings.size !== spec.size) differences.push(`size ${findings.size} bytes, expected ${spec.size}`);
    else kept.push(`${findings.size} bytes`);
  }
  if (spec.sha256 !== undefined) {
    if (findings.sha256 === undefined || findings.sha256 === 'unreadable') return error(`${where}: its SHA-256 could not be computed`);
    if (findings.sha256 !== spec.sha256) differences.push(`sha256 ${shortHash(findings.sha256)}, expected ${shortHash(spec.sha256)}`);
    else kept.push(`sha256 ${shortHash(findings.sha256)}`);
  }
  if (spec.contains !== undefined) {
    if (findings.contains === undefined || findings.contains === 'unreadable') return error(`${where}: its content could not be read`);
    const sentinel = `"${truncate(spec.contains, 40)}"`;
    if (findings.contains === 'no') differences.push(`does not contain ${sentinel}`);
    else kept.push(`contains ${sentinel}`);
  }
  if (differences.length > 0) return fail(`${where}: ${differences.join('; ')}`);
  const found = `${where} ${findings.type === 'dir' ? 'is a directory' : 'exists'}${kept.length > 0 ? ` (${kept.join(', ')})` : ''}`;
  if (!spec.freshness) return pass(found);
  if (spec.freshnessSource === 'content') {
    if (findings.content === undefined || findings.content === 'unreadable') return error(`${where}: its content could not be read`);
    return freshnessOutcome(found, findings.content.toString('utf8'));
  }
  if (findings.mtime === undefined) return error(`${where}: its modification time could not be read`);
  return freshnessOutcome(`${found}, modified`, String(findings.mtime));
}

export const runFileCheck: CheckExecutor = async (check, context) => {
  const spec = requireBlock(check, 'file');
  if (isOutcome(spec)) return spec;
  const problem = configurationProblem(spec);
  if (problem) return error(problem);
  const { reader } = context;
  if (!reader.claimUsers || !reader.runProbePod) return error('this server cannot run file checks (no pod runner)');
  const where = `claim ${spec.claim} path ${spec.path}`;

  let beside: ClaimUser | undefined;
  try {
    beside = pickClaimUser(await reader.claimUsers(context.namespace, spec.claim));
  } catch (thrown) {
    return error(`cannot list the pods that mount claim ${context.namespace}/${spec.claim}: ${describeError(thrown)}`);
  }
  const pod = buildFileCheckPod({
    namespace: context.namespace,
    checkName: check.name,
    check: spec,
    image: context.fileCheckImage ?? DEFAULT_FILE_CHECK_IMAGE,
    deadlineSeconds: Math.max(1, Math.floor(context.timeoutMs / 1000) - DEADLINE_MARGIN_SECONDS),
    ...(beside ? { beside } : {}),
  });
  const by = `pod ${fileCheckPodName(check.name)}${beside?.nodeName ? ` on node ${beside.nodeName} (beside ${beside.pod})` : ''}`;

  try {
    const outcome = await reader.runProbePod(pod, context.signal);
    if (outcome.phase === 'Stuck') return error(`${where}: ${by} could not start: ${outcome.reason ?? 'unknown reason'}`);
    if (outcome.phase === 'Failed' || outcome.exitCode !== 0) {
      const why = outcome.reason === 'DeadlineExceeded' ? 'it did not finish within its deadline' : `it ended ${outcome.exitCode !== undefined ? `with exit code ${outcome.exitCode}` : 'Failed'}${outcome.reason ? ` (${outcome.reason})` : ''}`;
      return error(`${where}: ${by} failed: ${why}`);
    }
    const parsed = parseFileCheckOutput(outcome.log);
    if (!parsed.ok) return error(`${where}: ${by} answered unexpectedly: ${parsed.problem}`);
    return judgeFindings(spec, parsed.findings, `${where}`);
  } catch (thrown) {
    if (context.signal.aborted) return error(`${where}: ${timedOut(context, `${by} did not finish`)}`);
    return error(`${where}: ${by} could not run: ${describeError(thrown)}`);
  }
};
