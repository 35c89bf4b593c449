// The file check's pod as data (server/checks/file-check-pod.ts): its name, its script, its output
// parser and its manifest. The script is also RUN here, by busybox when the machine has it (the
// default image is busybox), else by the local sh and coreutils, against files in a temporary
// directory: what it prints must be what the parser accepts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { V1PodSpec } from '@kubernetes/client-node';

/** The manifest's spec, read as the Kubernetes type it is sent as. */
const specOf = (pod: { spec: Record<string, unknown> }): V1PodSpec => pod.spec as unknown as V1PodSpec;
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  buildFileCheckPod,
  CONTENT_BYTES,
  FILE_CHECK_SCRIPT,
  fileCheckCommand,
  fileCheckPodName,
  isFileCheckPod,
  parseFileCheckOutput,
  pathProblem,
  pickClaimUser,
  VOLUME_MOUNT,
  type FileFindings,
} from '../../../server/checks/file-check-pod.js';
import type { ClaimUser } from '../../../server/checks/sandbox-reader.js';
import { ConfigError, loadConfig } from '../../../server/config.js';
import { describeCheck } from '../../../server/pdf/check-description.js';
import { PROBE_LOG_LIMIT } from '../../../server/checks/sandbox-reader.js';

const sha = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex');

describe('path rules', () => {
  it.each([
    ['/', undefined],
    ['/pgdata/PG_VERSION', undefined],
    ['/a b/"quoted" $(rm -rf /)', undefined],
    ['/..hidden/x', undefined],
    ['pgdata/PG_VERSION', 'path must be absolute (start with "/")'],
    ['', 'path must be absolute (start with "/")'],
    ['/pgdata/../../etc/shadow', 'path must not contain ".."'],
    ['/..', 'path must not contain ".."'],
    ['/a\nb', 'path must not contain NUL or line breaks'],
    ['/a\0b', 'path must not contain NUL or line breaks'],
    [`/${'x'.repeat(1024)}`, 'path must be at most 1024 bytes'],
  ])('%j → %s', (candidate, problem) => {
    expect(pathProblem(candidate)).toBe(problem);
  });
});

describe('pod name', () => {
  it('is the check name behind a fixed prefix: the same every attempt, so a restarted server finds a leftover', () => {
    expect(fileCheckPodName('sentinel')).toBe('rehearsal-file-sentinel');
    expect(fileCheckPodName('sentinel')).toBe(fileCheckPodName('sentinel'));
  });

  it('stays a valid name of at most 63 characters for long check names, and tells them apart', () => {
    const long = 'a'.repeat(55);
    const other = `${'a'.repeat(54)}b`;
    for (const name of [long, other, 'x'.repeat(63)]) {
      const podName = fileCheckPodName(name);
      expect(podName.length).toBeLessThanOrEqual(63);
      expect(podName).toMatch(/^rehearsal-file-[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    }
    expect(fileCheckPodName(long)).not.toBe(fileCheckPodName(other));
  });
});

describe('a file check\'s own pod', () => {
  it('is known by its name and its label together', () => {
    const labels = { 'app.kubernetes.io/component': 'rehearsal-file-check' };
    expect(isFileCheckPod({ name: 'rehearsal-file-sentinel', labels })).toBe(true);
    expect(isFileCheckPod({ name: 'web-0', labels })).toBe(false);
    expect(isFileCheckPod({ name: 'rehearsal-file-sentinel', labels: { app: 'x' } })).toBe(false);
    expect(isFileCheckPod({ name: 'rehearsal-file-sentinel' })).toBe(false);
    expect(isFileCheckPod(undefined)).toBe(false);
  });
});

describe('command', () => {
  it('passes the path and the sentinel as arguments, never inside the script text', () => {
    const hostile = `'; rm -rf / #`;
    const command = fileCheckCommand('/data/$(reboot)', { sha256: true, contains: hostile, content: false });
    expect(command.slice(0, 3)).toEqual(['sh', '-c', FILE_CHECK_SCRIPT]);
    expect(command.slice(3)).toEqual(['rehearsal-file-check', `${VOLUME_MOUNT}/data/$(reboot)`, hostile, '1', '1', '0']);
    expect(FILE_CHECK_SCRIPT).not.toContain('reboot');
  });

  it('asks only for what the check needs', () => {
    expect(fileCheckCommand('/', { sha256: false, content: true }).slice(4)).toEqual([VOLUME_MOUNT, '', '0', '0', '1']);
  });
});

// ------------------------------------------------------------------ the script, run for real

let work: string;
let shell: { program: string; env: NodeJS.ProcessEnv; name: string };

beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'file-check-'));
  const busybox = ['/bin/busybox', '/usr/bin/busybox'].find((candidate) => existsSync(candidate));
  if (busybox) {
    // Only busybox's applets on PATH: the script meets the tools the default image has.
    const bin = path.join(work, '.bin');
    mkdirSync(bin);
    for (const applet of ['sh', 'test', '[', 'stat', 'sha256sum', 'grep', 'head', 'od', 'tr', 'echo']) symlinkSync(busybox, path.join(bin, applet));
    shell = { program: path.join(bin, 'sh'), env: { PATH: bin }, name: 'busybox' };
  } else {
    shell = { program: 'sh', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, name: 'sh' };
  }
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

function runScript(target: string, request: { sha256?: boolean; contains?: string; content?: boolean }): string {
  const command = fileCheckCommand('/', { sha256: request.sha256 ?? false, ...(request.contains !== undefined ? { contains: request.contains } : {}), content: request.content ?? false });
  const args = [...command.slice(1, 4), target, ...command.slice(5)];
  return execFileSync(shell.program, args, { env: shell.env, encoding: 'utf8' });
}

function findings(output: string): FileFindings {
  const parsed = parseFileCheckOutput(output);
  if (!parsed.ok) throw new Error(`${parsed.problem}:\n${output}`);
  return parsed.findings;
}

describe('the script (run by busybox when available, else sh)', () => {
  it('a file: size, modification time, SHA-256, the sentinel found', () => {
    const file = path.join(work, 'rehearsal-sentinel');
    writeFileSync(file, 'token-4711\n');
    utimesSync(file, 1_795_874_703, 1_795_874_703);
    expect(findings(runScript(file, { sha256: true, contains: 'token-4711' }))).toEqual({
      exists: true,
      type: 'file',
      readable: true,
      size: 11,
      mtime: 1_795_874_703,
      sha256: sha('token-4711\n'),
      contains: 'yes',
    });
    expect(findings(runScript(file, { contains: 'token-4712' }))).toMatchObject({ contains: 'no' });
  });

  it('a name and a sentinel full of shell syntax are data, not code', () => {
    const file = path.join(work, `it's "$(touch pwned)" ; x`);
    writeFileSync(file, 'a $(touch pwned) b\n');
    expect(findings(runScript(file, { contains: '$(touch pwned)' }))).toMatchObject({ exists: true, type: 'file', contains: 'yes' });
    expect(existsSync(path.join(work, 'pwned'))).toBe(false);
    expect(existsSync('pwned')).toBe(false);
  });

  it('a missing path, a directory, a symbolic link', () => {
    expect(findings(runScript(path.join(work, 'nothing-here'), { sha256: true }))).toEqual({ exists: false });
    const directory = path.join(work, 'pgdata');
    mkdirSync(directory);
    expect(findings(runScript(directory, { sha256: true, contains: 'x' }))).toMatchObject({ exists: true, type: 'dir', size: expect.any(Number) });
    const link = path.join(work, 'link');
    symlinkSync('/etc/hostname', link);
    expect(findings(runScript(link, { sha256: true }))).toMatchObject({ exists: true, type: 'symlink' });
    // A dangling link exists as a link too.
    const dangling = path.join(work, 'dangling');
    symlinkSync('/nowhere/at/all', dangling);
    expect(findings(runScript(dangling, {}))).toMatchObject({ exists: true, type: 'symlink' });
  });

  it(`content: the first ${CONTENT_BYTES} bytes as hex, binary and line breaks included`, () => {
    const stamp = path.join(work, 'last-write');
    writeFileSync(stamp, '2026-11-28T14:05:03Z\n');
    expect((findings(runScript(stamp, { content: true })) as { content: Buffer }).content.toString('utf8')).toBe('2026-11-28T14:05:03Z\n');
    const binary = path.join(work, 'binary');
    const bytes = Buffer.from(Array.from({ length: 200 }, (_, index) => (index * 37) % 256));
    writeFileSync(binary, bytes);
    expect((findings(runScript(binary, { content: true, sha256: true })) as { content: Buffer }).content).toEqual(bytes.subarray(0, CONTENT_BYTES));
    const empty = path.join(work, 'empty');
    writeFileSync(empty, '');
    expect(findings(runScript(empty, { content: true, sha256: true }))).toMatchObject({ size: 0, sha256: sha(''), content: Buffer.alloc(0) });
  });

  it('prints far less than the log limit the reader keeps', () => {
    const file = path.join(work, 'rehearsal-sentinel');
    expect(Buffer.byteLength(runScript(file, { sha256: true, contains: 'x'.repeat(256), content: true }))).toBeLessThan(PROBE_LOG_LIMIT / 8);
  });
});

// ------------------------------------------------------------------ parser, hostile output

const good = ['rehearsal-file-check 1', 'exists yes', 'type file', 'readable yes', 'stat 11 1795874703', `sha256 ${'a'.repeat(64)}`, 'contains yes', 'end', ''].join('\n');

describe('output parser', () => {
  it('reads the lines the script writes', () => {
    expect(parseFileCheckOutput(good)).toEqual({
      ok: true,
      findings: { exists: true, type: 'file', readable: true, size: 11, mtime: 1_795_874_703, sha256: 'a'.repeat(64), contains: 'yes' },
    });
    expect(parseFileCheckOutput('rehearsal-file-check 1\r\nexists no\r\nend\r\n')).toEqual({ ok: true, findings: { exists: false } });
  });

  const junk = Buffer.from(Array.from({ length: PROBE_LOG_LIMIT }, (_, index) => (index * 131) % 256)).toString('latin1');
  it.each([
    ['empty', '', 'the output does not start with the file check\'s header'],
    ['another program\'s output', 'sh: stat: not found\n', 'the output does not start with the file check\'s header'],
    ['binary garbage', junk, 'the output does not start with the file check\'s header'],
    ['cut short (no end)', good.replace('end\n', ''), 'the output has no end line (cut short or too long)'],
    ['huge: a line of the log limit, cut by the reader', `rehearsal-file-check 1\nexists yes\ntype file\nstat ${'9'.repeat(PROBE_LOG_LIMIT)}`, 'the output has no end line (cut short or too long)'],
    ['something after the end', `${good}sha256 ${'b'.repeat(64)}\n`, 'the output goes on after its end line'],
    ['an unknown line', good.replace('contains yes', 'owner root'), 'line 7 of the output is not one the file check writes'],
    ['a bare word', good.replace('contains yes', 'contains'), 'line 7 of the output is not one the file check writes'],
    ['a repeated line', good.replace('contains yes', 'exists yes'), 'the output repeats its exists line'],
    ['a short SHA-256', good.replace('a'.repeat(64), 'a'.repeat(63)), 'line 6 of the output has an invalid sha256 value'],
    ['an upper-case SHA-256', good.replace('a'.repeat(64), 'A'.repeat(64)), 'line 6 of the output has an invalid sha256 value'],
    ['a size of 20 digits', good.replace('stat 11', `stat ${'1'.repeat(20)}`), 'line 5 of the output has an invalid stat value'],
    ['a negative size', good.replace('stat 11', 'stat -11'), 'line 5 of the output has an invalid stat value'],
    ['an unknown type', good.replace('type file', 'type fifo'), 'line 3 of the output has an invalid type value'],
    ['no exists line', good.replace('exists yes\n', ''), 'the output has no exists line'],
    ['no type line', good.replace('type file\n', ''), 'the output has no type line'],
    ['absent, yet described', 'rehearsal-file-check 1\nexists no\ntype file\nend\n', 'the output describes a path that does not exist'],
    ['content of odd length', 'rehearsal-file-check 1\nexists yes\ntype file\ncontent abc\nend\n', 'the output has an invalid content value'],
    ['content longer than asked', `rehearsal-file-check 1\nexists yes\ntype file\ncontent ${'ab'.repeat(CONTENT_BYTES + 1)}\nend\n`, 'line 4 of the output has an invalid content value'],
    ['a NUL in a value', good.replace('contains yes', 'contains y\0es'), 'line 7 of the output has an invalid contains value'],
  ])('refuses %s', (_case, output, problem) => {
    expect(parseFileCheckOutput(output)).toEqual({ ok: false, problem });
  });
});

// ------------------------------------------------------------------ pod manifest

const user = (overrides: Partial<ClaimUser> = {}): ClaimUser => ({
  pod: 'pg-0',
  phase: 'Running',
  nodeName: 'node-a',
  terminating: false,
  security: { runAsUser: 999, runAsGroup: 999, fsGroup: 2000, supplementalGroups: [5] },
  ...overrides,
});

describe('pod manifest', () => {
  const build = (beside: ClaimUser | undefined, check = { claim: 'data-pg-0', path: '/pgdata/rehearsal-sentinel', sha256: 'c'.repeat(64) }) =>
    buildFileCheckPod({ namespace: 'rehearsal-shop-abc12', checkName: 'sentinel', check, image: 'mirror.local/busybox:1', deadlineSeconds: 27.2, ...(beside ? { beside } : {}) });

  it('mounts the claim read-only (volume and mount), with a read-only root filesystem and no token', () => {
    const pod = build(user());
    const spec = specOf(pod);
    expect(pod.metadata).toEqual({
      name: 'rehearsal-file-sentinel',
      namespace: 'rehearsal-shop-abc12',
      labels: { 'app.kubernetes.io/managed-by': 'rehearsal', 'app.kubernetes.io/component': 'rehearsal-file-check', 'rehearsal.dev/file-check': 'sentinel' },
    });
    expect(spec.volumes).toEqual([{ name: 'restored', persistentVolumeClaim: { claimName: 'data-pg-0', readOnly: true } }]);
    expect(spec.containers).toHaveLength(1);
    const container = spec.containers[0]!;
    expect(container.volumeMounts).toEqual([{ name: 'restored', mountPath: '/volume', readOnly: true }]);
    expect(container.securityContext).toEqual({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      privileged: false,
      capabilities: { drop: ['ALL'] },
    });
    expect(spec.automountServiceAccountToken).toBe(false);
    expect(spec.enableServiceLinks).toBe(false);
    expect(container.env).toBeUndefined();
    expect(container.envFrom).toBeUndefined();
    expect(spec.hostNetwork).toBeUndefined();
    expect(spec.restartPolicy).toBe('Never');
    expect(container.image).toBe('mirror.local/busybox:1');
    expect(container.command).toEqual(fileCheckCommand('/pgdata/rehearsal-sentinel', { sha256: true, content: false }));
  });

  it('runs on the node of the restored pod that mounts the claim, as its user and groups (fsGroup only as a supplemental group)', () => {
    const spec = specOf(build(user()));
    expect(spec.nodeName).toBe('node-a');
    expect(spec.securityContext).toEqual({
      runAsUser: 999,
      runAsGroup: 999,
      runAsNonRoot: true,
      supplementalGroups: [5, 2000],
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(spec.securityContext!.fsGroup).toBeUndefined();
  });

  it('as root (the restored pod sets no user) it keeps DAC_OVERRIDE alone, to read the app\'s private files on the read-only mount', () => {
    const spec = specOf(build(user({ security: {} })));
    // Root explicitly: the check image's own USER (the test cluster's is 65532) must not decide.
    expect(spec.securityContext).toEqual({ runAsUser: 0, seccompProfile: { type: 'RuntimeDefault' } });
    expect(spec.containers[0]!.securityContext!.capabilities).toEqual({ drop: ['ALL'], add: ['DAC_OVERRIDE'] });
    expect(specOf(build(user({ security: { runAsUser: 0 } }))).containers[0]!.securityContext!.capabilities!.add).toEqual(['DAC_OVERRIDE']);
    // runAsNonRoot without a user: the image's user must not be root; no capability is added.
    const nonRoot = specOf(build(user({ security: { runAsNonRoot: true } })));
    expect(nonRoot.securityContext!.runAsNonRoot).toBe(true);
    expect(nonRoot.containers[0]!.securityContext!.capabilities).toEqual({ drop: ['ALL'] });
  });

  it('has a deadline (whole seconds, at least 1) and small resource limits', () => {
    const spec = specOf(build(user()));
    expect(spec.activeDeadlineSeconds).toBe(28);
    expect(spec.containers[0]!.resources).toEqual({ requests: { cpu: '10m', memory: '16Mi' }, limits: { cpu: '200m', memory: '32Mi' } });
    expect(specOf(buildFileCheckPod({ namespace: 'n', checkName: 'c', check: { claim: 'c', path: '/' }, image: 'i', deadlineSeconds: 0 })).activeDeadlineSeconds).toBe(1);
  });

  it('without a pod that mounts the claim: no node, and root as for a restored pod without a user', () => {
    const spec = specOf(build(undefined));
    expect(spec.nodeName).toBeUndefined();
    expect(spec.securityContext).toEqual({ runAsUser: 0, seccompProfile: { type: 'RuntimeDefault' } });
  });
});

describe('the restored pod the check runs beside', () => {
  it('is a scheduled, non-terminating one: running first, then by name', () => {
    expect(pickClaimUser([])).toBeUndefined();
    expect(pickClaimUser([user({ pod: 'b' }), user({ pod: 'a', phase: 'Pending' })])?.pod).toBe('b');
    expect(pickClaimUser([user({ pod: 'b' }), user({ pod: 'a' })])?.pod).toBe('a');
    expect(pickClaimUser([user({ terminating: true }), user({ pod: 'x', phase: 'Succeeded' })])).toBeUndefined();
    const { nodeName: _node, ...unscheduled } = user();
    expect(pickClaimUser([unscheduled])).toBeUndefined();
  });
});

describe('the image setting (REHEARSAL_FILE_CHECK_IMAGE)', () => {
  it('defaults to busybox, and takes any image reference', () => {
    expect(loadConfig({}).fileCheckImage).toBe('docker.io/library/busybox:1.37.0');
    expect(loadConfig({ REHEARSAL_FILE_CHECK_IMAGE: ' registry.local/mirror/busybox@sha256:' + 'a'.repeat(64) + ' ' }).fileCheckImage).toBe(
      `registry.local/mirror/busybox@sha256:${'a'.repeat(64)}`,
    );
  });

  it.each(['', 'busy box'])('refuses %j, naming the variable', (image) => {
    expect(() => loadConfig({ REHEARSAL_FILE_CHECK_IMAGE: image })).toThrow(ConfigError);
    expect(() => loadConfig({ REHEARSAL_FILE_CHECK_IMAGE: image })).toThrow('REHEARSAL_FILE_CHECK_IMAGE');
  });
});

describe('the test report PDF describes a file check', () => {
  it('by claim, path and what it expects', () => {
    const base = { name: 's', kind: 'file' as const };
    expect(describeCheck({ ...base, file: { claim: 'data-pg-0', path: '/rehearsal-sentinel', size: 11, sha256: 'ab'.repeat(32), contains: 'token', freshness: true } })).toBe(
      `File /rehearsal-sentinel on restored claim data-pg-0 exists; 11 bytes, SHA-256 ${'ab'.repeat(6)}…, contains "token", newest data from its modification time.`,
    );
    expect(describeCheck({ ...base, file: { claim: 'c', path: '/x', exists: false } })).toBe('File /x on restored claim c does not exist.');
    expect(describeCheck(base)).toBe('File (configuration missing).');
  });
});
