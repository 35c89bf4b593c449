// The file check's executor with a fake SandboxReader: which pod it asks for, and how it judges
// what the pod printed (server/checks/file.check.ts). The pod's real lifecycle (create, wait, log,
// delete) is in sandbox-reader.kube.ts; test/integration/real-node-file-check.test.ts runs it.
import { describe, expect, it } from '@jest/globals';
import type { V1PodSpec } from '@kubernetes/client-node';

/** The manifest's spec, read as the Kubernetes type it is sent as. */
const specOf = (pod: { spec: Record<string, unknown> }): V1PodSpec => pod.spec as unknown as V1PodSpec;
import { createHash } from 'node:crypto';
import { runCheck } from '../../../server/checks/check-runner.js';
import { runFileCheck } from '../../../server/checks/file.check.js';
import { DEFAULT_FILE_CHECK_IMAGE } from '../../../server/checks/file-check-pod.js';
import type { ClaimUser, ProbePodManifest, ProbePodOutcome, SandboxReader } from '../../../server/checks/sandbox-reader.js';
import { SandboxReadError } from '../../../server/checks/sandbox-reader.js';
import type { FileCheck, HealthCheck } from '../../../server/domain/resources/resources.js';
import { StaticTargetResolver } from '../../../server/checks/target-resolver.js';
import { checkContext, FakeSandboxReader } from './fake-sandbox-reader.js';

const NS = 'rehearsal-shop-abc12';
const SENTINEL = 'token-4711';
const CONTENT = `${SENTINEL}\n`;
const HASH = createHash('sha256').update(CONTENT).digest('hex');
const OTHER_HASH = createHash('sha256').update('something else').digest('hex');
const WHERE = 'claim data-pg-0 path /pgdata/rehearsal-sentinel';

const pg0: ClaimUser = { pod: 'pg-0', phase: 'Running', nodeName: 'node-a', terminating: false, security: { runAsUser: 999 } };

function check(file: Partial<FileCheck> = {}): HealthCheck {
  return { name: 'sentinel', kind: 'file', file: { claim: 'data-pg-0', path: '/pgdata/rehearsal-sentinel', ...file } };
}

function output(lines: string[]): string {
  return ['rehearsal-file-check 1', ...lines, 'end', ''].join('\n');
}

const aFile = (extra: string[] = []) => output(['exists yes', 'type file', 'readable yes', 'stat 11 1795874703', ...extra]);

function setup(probe: (pod: ProbePodManifest, signal: AbortSignal) => Promise<ProbePodOutcome>, users: ClaimUser[] = [pg0], timeoutMs = 30_000) {
  const reader = new FakeSandboxReader({ claimUsers: { [`${NS}/data-pg-0`]: users }, probe });
  return { reader, context: checkContext({ reader, namespace: NS, timeoutMs, fileCheckImage: 'mirror.local/busybox:1' }) };
}

const succeeded = (log: string) => async (): Promise<ProbePodOutcome> => ({ phase: 'Succeeded', exitCode: 0, log });

describe('file check', () => {
  it('passes when the sentinel file has the expected SHA-256, size and content; the pod runs beside the restored pod', async () => {
    const { reader, context } = setup(succeeded(aFile([`sha256 ${HASH}`, 'contains yes'])));
    expect(await runFileCheck(check({ sha256: HASH, size: 11, contains: SENTINEL }), context)).toEqual({
      status: 'pass',
      message: `${WHERE} exists (11 bytes, sha256 ${HASH.slice(0, 12)}…, contains "${SENTINEL}")`,
    });
    expect(reader.calls.map((call) => call.method)).toEqual(['claimUsers', 'runProbePod']);
    const pod = reader.calls[1]!.args[0] as ProbePodManifest;
    const spec = specOf(pod);
    expect(pod.metadata.namespace).toBe(NS);
    expect(pod.metadata.name).toBe('rehearsal-file-sentinel');
    expect(spec.nodeName).toBe('node-a');
    expect(spec.securityContext!.runAsUser).toBe(999);
    expect(spec.containers[0]!.image).toBe('mirror.local/busybox:1');
    // The deadline leaves time to read the log and delete the pod within the check's timeout.
    expect(spec.activeDeadlineSeconds).toBe(27);
  });

  it('a wrong SHA-256 fails naming the path and both hash prefixes; a wrong size names both sizes', async () => {
    const { context } = setup(succeeded(aFile([`sha256 ${HASH}`])));
    expect(await runFileCheck(check({ sha256: OTHER_HASH, size: 12 }), context)).toEqual({
      status: 'fail',
      message: `${WHERE}: size 11 bytes, expected 12; sha256 ${HASH.slice(0, 12)}…, expected ${OTHER_HASH.slice(0, 12)}…`,
    });
  });

  it('a missing sentinel fails naming it; a missing file fails; exists false passes only when it is absent', async () => {
    expect(await runFileCheck(check({ contains: SENTINEL }), setup(succeeded(aFile(['contains no']))).context)).toEqual({
      status: 'fail',
      message: `${WHERE}: does not contain "${SENTINEL}"`,
    });
    const absent = setup(succeeded(output(['exists no']))).context;
    expect(await runFileCheck(check(), absent)).toEqual({ status: 'fail', message: `${WHERE} does not exist` });
    expect(await runFileCheck(check({ exists: false }), absent)).toEqual({ status: 'pass', message: `${WHERE} does not exist, as expected` });
    expect(await runFileCheck(check({ exists: false }), setup(succeeded(aFile())).context)).toEqual({
      status: 'fail',
      message: `${WHERE} exists (a file), expected it not to`,
    });
  });

  it('a directory passes an existence check and fails a content check; a symbolic link fails', async () => {
    const directory = setup(succeeded(output(['exists yes', 'type dir', 'stat 4096 1795874703']))).context;
    expect(await runFileCheck(check({ path: '/pgdata' }), directory)).toEqual({ status: 'pass', message: 'claim data-pg-0 path /pgdata is a directory' });
    expect((await runFileCheck(check({ path: '/pgdata', sha256: HASH }), directory)).message).toBe('claim data-pg-0 path /pgdata is a directory, expected a file');
    const link = setup(succeeded(output(['exists yes', 'type symlink']))).context;
    expect(await runFileCheck(check(), link)).toMatchObject({ status: 'fail', message: expect.stringContaining(`${WHERE} is a symbolic link`) });
  });

  it('an unreadable file or hash is an error, not a fail: the check could not look', async () => {
    const unreadable = output(['exists yes', 'type file', 'readable no', 'stat 11 1795874703', 'sha256 unreadable']);
    expect(await runFileCheck(check({ sha256: HASH }), setup(succeeded(unreadable)).context)).toEqual({
      status: 'error',
      message: `${WHERE} is not readable by the check's pod (it runs as the restored pod's user)`,
    });
  });

  it('freshness from the modification time: the check\'s newestData', async () => {
    const { context } = setup(succeeded(aFile()));
    expect(await runFileCheck(check({ freshness: true }), context)).toEqual({
      status: 'pass',
      message: `${WHERE} exists, modified; newest data 2026-11-28T14:05:03.000Z`,
      newestData: '2026-11-28T14:05:03.000Z',
    });
  });

  it('freshness from the content: a timestamp passes; anything else fails without showing it', async () => {
    const hex = (text: string) => Buffer.from(text).toString('hex');
    const stamped = setup(succeeded(aFile([`content ${hex('2026-11-28 14:05:03+00\n')}`]))).context;
    expect(await runFileCheck(check({ freshness: true, freshnessSource: 'content' }), stamped)).toMatchObject({ status: 'pass', newestData: '2026-11-28T14:05:03.000Z' });
    const secret = setup(succeeded(aFile([`content ${hex('card 4242 4242')}`]))).context;
    const outcome = await runFileCheck(check({ freshness: true, freshnessSource: 'content' }), secret);
    expect(outcome).toEqual({ status: 'fail', message: `${WHERE} exists, but its value (14 bytes) is not a timestamp or Unix time: no RPO measured` });
    expect(outcome.message).not.toContain('4242');
  });

  it.each([
    ['the pod could not start', { phase: 'Stuck', reason: 'ImagePullBackOff: back-off pulling image', log: '' }, `${WHERE}: pod rehearsal-file-sentinel on node node-a (beside pg-0) could not start: ImagePullBackOff: back-off pulling image`],
    ['the pod hit its deadline', { phase: 'Failed', reason: 'DeadlineExceeded', log: '' }, `${WHERE}: pod rehearsal-file-sentinel on node node-a (beside pg-0) failed: it did not finish within its deadline`],
    ['the script exited non-zero', { phase: 'Failed', exitCode: 127, log: 'sh: not found' }, `${WHERE}: pod rehearsal-file-sentinel on node node-a (beside pg-0) failed: it ended with exit code 127`],
    ['the output is not the script\'s', { phase: 'Succeeded', exitCode: 0, log: '\u0000\u0001garbage' }, `${WHERE}: pod rehearsal-file-sentinel on node node-a (beside pg-0) answered unexpectedly: the output does not start with the file check's header`],
  ] as const)('%s → error', async (_case, outcome, message) => {
    const { context } = setup(async () => ({ ...outcome }) as ProbePodOutcome);
    expect(await runFileCheck(check({ sha256: HASH }), context)).toEqual({ status: 'error', message });
  });

  it('a refused pod (Pod Security, quota, RBAC) is an error naming the reason', async () => {
    const { context } = setup(async () => {
      throw new SandboxReadError('Forbidden', 'create pod: pods "rehearsal-file-sentinel" is forbidden: violates PodSecurity "restricted:latest"', 403);
    });
    expect((await runFileCheck(check(), context)).message).toBe(
      `${WHERE}: pod rehearsal-file-sentinel on node node-a (beside pg-0) could not run: Forbidden (HTTP 403): create pod: pods "rehearsal-file-sentinel" is forbidden: violates PodSecurity "restricted:latest"`,
    );
  });

  it('no pod mounts the claim: the pod is scheduled freely, as root (nothing to inherit)', async () => {
    const { reader, context } = setup(succeeded(aFile()), []);
    expect(await runFileCheck(check(), context)).toEqual({ status: 'pass', message: `${WHERE} exists` });
    const spec = specOf(reader.calls[1]!.args[0] as ProbePodManifest);
    expect(spec.nodeName).toBeUndefined();
    expect(spec.securityContext?.runAsUser).toBe(0);
  });

  it('uses the default image when the server names none', async () => {
    const reader = new FakeSandboxReader({ claimUsers: { [`${NS}/data-pg-0`]: [pg0] }, probe: succeeded(aFile()) });
    await runFileCheck(check(), checkContext({ reader, namespace: NS }));
    expect(specOf(reader.calls[1]!.args[0] as ProbePodManifest).containers[0]!.image).toBe(DEFAULT_FILE_CHECK_IMAGE);
  });

  it('stops on the check\'s timeout and says so', async () => {
    const controller = new AbortController();
    const reader = new FakeSandboxReader({
      claimUsers: { [`${NS}/data-pg-0`]: [pg0] },
      probe: (_pod, signal) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => reject(new SandboxReadError('Timeout', 'aborted')));
          setImmediate(() => controller.abort()); // the timeout fires while the pod runs
        }),
    });
    const pending = runFileCheck(check(), checkContext({ reader, namespace: NS, signal: controller.signal, timeoutMs: 5_000 }));
    expect(await pending).toEqual({ status: 'error', message: `${WHERE}: pod rehearsal-file-sentinel on node node-a (beside pg-0) did not finish within the 5s timeout` });
  });

  it.each([
    [{ path: 'relative' }, 'path must be absolute (start with "/")'],
    [{ path: '/a/../b' }, 'path must not contain ".."'],
    [{ sha256: 'ABC' }, 'sha256 must be 64 lowercase hex digits'],
    [{ size: -1 }, 'size must be a non-negative integer'],
    [{ contains: 'two\nlines' }, 'contains must be a non-empty single line'],
    [{ exists: false, sha256: HASH }, 'exists: false cannot be combined with size, sha256, contains or freshness'],
    [{ claim: '' }, 'claim is required'],
  ] as const)('misconfigured %j → error, no pod', async (file, message) => {
    const { reader, context } = setup(succeeded(aFile()));
    expect(await runFileCheck(check(file as Partial<FileCheck>), context)).toEqual({ status: 'error', message });
    expect(reader.calls).toEqual([]);
  });

  it('a reader that cannot run pods, or a missing block, is an error', async () => {
    const bare = { listPods: async () => [] } as unknown as SandboxReader;
    expect(await runFileCheck(check(), checkContext({ reader: bare }))).toEqual({ status: 'error', message: 'this server cannot run file checks (no pod runner)' });
    expect(await runFileCheck({ name: 'x', kind: 'file' }, checkContext())).toEqual({ status: 'error', message: 'check of kind file has no "file" block' });
  });

  it('runs through the check runner: the kind is file, critical as any check, newestData carried', async () => {
    const reader = new FakeSandboxReader({ claimUsers: { [`${NS}/data-pg-0`]: [pg0] }, probe: succeeded(aFile()) });
    const result = await runCheck(
      { ...check({ freshness: true }), critical: true },
      { reader, targets: new StaticTargetResolver({}), namespaces: [{ source: 'shop', sandbox: NS }], fileCheckImage: 'mirror.local/busybox:1' },
    );
    expect(result).toMatchObject({ name: 'sentinel', kind: 'file', status: 'pass', newestData: '2026-11-28T14:05:03.000Z' });
    expect(specOf(reader.calls[1]!.args[0] as ProbePodManifest).containers[0]!.image).toBe('mirror.local/busybox:1');
  });
});
