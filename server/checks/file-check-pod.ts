// The file check's pod (decision 0020), as data: its name, the script it runs, the manifest, and
// the parser of what it prints. Pure: no I/O here; file.check.ts runs it through the reader.
//
// The pod reads a restored claim and nothing else: the claim is mounted readOnly (volume and
// mount), the root filesystem is read-only, no ServiceAccount token, no service links, no host
// namespaces, every capability dropped (DAC_OVERRIDE only when it runs as root, to read an app's
// 0700 files on a mount that cannot be written anyway), small resource limits and an
// activeDeadlineSeconds. It runs on the node of the restored pod that mounts the claim (an RWO
// volume is attached there) as that pod's user and groups, so it reads what the app can read; the
// app's fsGroup becomes a supplemental group (an fsGroup would let the kubelet change ownership).
// The admission policy rehearsal-server-sandboxes-only (deploy/base/server-admission.yaml) refuses
// the server any pod that is not of this shape, and any pod outside a sandbox.
//
// The script takes the path and the sentinel as positional arguments ($1, $2), never spliced into
// the script text, and prints one line per finding:
//   rehearsal-file-check 1           (header, always first)
//   exists yes|no
//   type file|dir|symlink|other
//   readable yes|no
//   stat <size> <mtime>              (bytes, Unix seconds)
//   sha256 <64 hex>|unreadable       (only when asked)
//   contains yes|no|unreadable       (only when asked)
//   content <hex>|unreadable         (the first 64 bytes, hex: only for freshness from content)
//   end
// The parser accepts exactly these (bounded, at most once each) and calls anything else invalid:
// the output comes from a pod in a sandbox that restored data of unknown origin.

import { createHash } from 'node:crypto';
import { DEFAULT_FILE_CHECK_IMAGE, type FileCheck } from '../domain/resources/resources.js';
import type { ClaimUser, InheritedSecurity, ProbePodManifest } from './sandbox-reader.js';

export { DEFAULT_FILE_CHECK_IMAGE };
/** Where the claim is mounted in the pod; a check's path is below it. */
export const VOLUME_MOUNT = '/volume';
/** Bytes of the file's beginning read for freshness from content (a timestamp is shorter). */
export const CONTENT_BYTES = 64;
const FILE_CHECK_COMPONENT = 'rehearsal-file-check';
const FILE_CHECK_LABEL = 'rehearsal.dev/file-check';
const NAME_PREFIX = 'rehearsal-file-';
const HEADER = 'rehearsal-file-check 1';

/**
 * A file check's own pod (name and label): never part of the restored application, so the pod
 * lists of podsReady, exec and the run's pod counts leave it out (one may run beside them).
 */
export function isFileCheckPod(metadata: { name?: string; labels?: Record<string, string> } | undefined): boolean {
  return Boolean(metadata?.name?.startsWith(NAME_PREFIX) && metadata.labels?.['app.kubernetes.io/component'] === FILE_CHECK_COMPONENT);
}

/** The path rules the CRD states too: absolute, no "..", no NUL or newline, at most 1024 bytes. */
export function pathProblem(path: string): string | undefined {
  if (typeof path !== 'string' || !path.startsWith('/')) return 'path must be absolute (start with "/")';
  if (path.split('/').includes('..')) return 'path must not contain ".."';
  if (/[\0\n\r]/.test(path)) return 'path must not contain NUL or line breaks';
  if (Buffer.byteLength(path) > 1024) return 'path must be at most 1024 bytes';
  return undefined;
}

/**
 * The pod's name: the same for the same check in the same sandbox (one per run), so an attempt
 * after a server restart finds the pod an earlier one left and removes it. At most 63 characters.
 */
export function fileCheckPodName(checkName: string): string {
  const safe = checkName.toLowerCase().replace(/[^a-z0-9-]/g, '-');
  const whole = `${NAME_PREFIX}${safe}`.replace(/-+$/, '');
  if (whole.length <= 63 && safe === checkName) return whole;
  const digest = createHash('sha256').update(checkName).digest('hex').slice(0, 8);
  return `${NAME_PREFIX}${safe.slice(0, 63 - NAME_PREFIX.length - 9).replace(/-+$/, '')}-${digest}`;
}

/** What the script reads besides existence and stat. */
interface ScriptRequest {
  sha256: boolean;
  /** The sentinel to look for (grep -F), if any. */
  contains?: string;
  content: boolean;
}

/** The shell script (busybox sh); $1 the path in the pod, $2 the sentinel, $3/$4/$5 the flags. */
export const FILE_CHECK_SCRIPT = [
  'f="$1"',
  `echo '${HEADER}'`,
  'if [ ! -e "$f" ] && [ ! -L "$f" ]; then echo "exists no"; echo end; exit 0; fi',
  'echo "exists yes"',
  'if [ -L "$f" ]; then t=symlink; elif [ -f "$f" ]; then t=file; elif [ -d "$f" ]; then t=dir; else t=other; fi',
  'echo "type $t"',
  'if [ "$t" != file ]; then s=$(stat -c "%s %Y" "$f" 2>/dev/null) && echo "stat $s"; echo end; exit 0; fi',
  'if [ -r "$f" ]; then echo "readable yes"; else echo "readable no"; fi',
  's=$(stat -c "%s %Y" "$f" 2>/dev/null) && echo "stat $s"',
  'if [ "$3" = 1 ]; then h=$(sha256sum < "$f" 2>/dev/null) && echo "sha256 ${h%% *}" || echo "sha256 unreadable"; fi',
  'if [ "$4" = 1 ]; then if [ ! -r "$f" ]; then echo "contains unreadable"; elif grep -qF -e "$2" < "$f" 2>/dev/null; then echo "contains yes"; else echo "contains no"; fi; fi',
  `if [ "$5" = 1 ]; then if [ -r "$f" ]; then echo "content $(head -c ${CONTENT_BYTES} < "$f" | od -An -v -tx1 | tr -d ' \\n')"; else echo "content unreadable"; fi; fi`,
  'echo end',
].join('\n');

/** The container's command: the script, then its arguments. */
export function fileCheckCommand(path: string, request: ScriptRequest): string[] {
  return [
    'sh',
    '-c',
    FILE_CHECK_SCRIPT,
    FILE_CHECK_COMPONENT,
    `${VOLUME_MOUNT}${path === '/' ? '' : path}`,
    request.contains ?? '',
    request.sha256 ? '1' : '0',
    request.contains !== undefined ? '1' : '0',
    request.content ? '1' : '0',
  ];
}

type FileType = 'file' | 'dir' | 'symlink' | 'other';

export type FileFindings =
  | { exists: false }
  | {
      exists: true;
      type: FileType;
      readable?: boolean;
      size?: number;
      /** Unix seconds. */
      mtime?: number;
      /** 64 hex digits, or 'unreadable'. */
      sha256?: string;
      contains?: 'yes' | 'no' | 'unreadable';
      /** The file's first bytes, or 'unreadable'. */
      content?: Buffer | 'unreadable';
    };

type ParsedOutput = { ok: true; findings: FileFindings } | { ok: false; problem: string };

const LINE_RULES: Record<string, RegExp> = {
  exists: /^(yes|no)$/,
  type: /^(file|dir|symlink|other)$/,
  readable: /^(yes|no)$/,
  stat: /^(\d{1,16}) (-?\d{1,16})$/,
  sha256: /^([0-9a-f]{64}|unreadable)$/,
  contains: /^(yes|no|unreadable)$/,
  content: new RegExp(`^([0-9a-f]{0,${CONTENT_BYTES * 2}}|unreadable)$`),
};

/** Parses the pod's log (already bounded by the reader); never throws. */
export function parseFileCheckOutput(log: string): ParsedOutput {
  const lines = log.split('\n').map((line) => line.replace(/\r$/, ''));
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  if (lines[0] !== HEADER) return { ok: false, problem: 'the output does not start with the file check\'s header' };
  const endAt = lines.indexOf('end');
  if (endAt < 0) return { ok: false, problem: 'the output has no end line (cut short or too long)' };
  if (endAt !== lines.length - 1) return { ok: false, problem: 'the output goes on after its end line' };
  const fields = new Map<string, string>();
  for (const [index, line] of lines.slice(1, endAt).entries()) {
    const space = line.indexOf(' ');
    const key = space < 0 ? line : line.slice(0, space);
    const rule = LINE_RULES[key];
    if (!rule || space < 0) return { ok: false, problem: `line ${index + 2} of the output is not one the file check writes` };
    const value = line.slice(space + 1);
    if (!rule.test(value)) return { ok: false, problem: `line ${index + 2} of the output has an invalid ${key} value` };
    if (fields.has(key)) return { ok: false, problem: `the output repeats its ${key} line` };
    fields.set(key, value);
  }
  const exists = fields.get('exists');
  if (exists === undefined) return { ok: false, problem: 'the output has no exists line' };
  if (exists === 'no') {
    return fields.size === 1 ? { ok: true, findings: { exists: false } } : { ok: false, problem: 'the output describes a path that does not exist' };
  }
  const type = fields.get('type') as FileType | undefined;
  if (!type) return { ok: false, problem: 'the output has no type line' };
  const stat = fields.get('stat');
  const [, size, mtime] = stat ? (LINE_RULES.stat!.exec(stat) as RegExpExecArray) : [];
  const readable = fields.get('readable');
  const sha256 = fields.get('sha256');
  const contains = fields.get('contains') as 'yes' | 'no' | 'unreadable' | undefined;
  const content = fields.get('content');
  if (content !== undefined && content !== 'unreadable' && content.length % 2 !== 0)
    return { ok: false, problem: 'the output has an invalid content value' };
  return {
    ok: true,
    findings: {
      exists: true,
      type,
      ...(readable !== undefined ? { readable: readable === 'yes' } : {}),
      ...(size !== undefined ? { size: Number(size) } : {}),
      ...(mtime !== undefined ? { mtime: Number(mtime) } : {}),
      ...(sha256 !== undefined ? { sha256 } : {}),
      ...(contains !== undefined ? { contains } : {}),
      ...(content !== undefined ? { content: content === 'unreadable' ? 'unreadable' : Buffer.from(content, 'hex') } : {}),
    },
  };
}

/** The restored pod the check runs beside: a non-terminating, scheduled one, running first, then by name. */
export function pickClaimUser(users: readonly ClaimUser[]): ClaimUser | undefined {
  const rank = (user: ClaimUser): number => (user.phase === 'Running' ? 0 : 1);
  return users
    .filter((user) => !user.terminating && user.nodeName && user.phase !== 'Succeeded' && user.phase !== 'Failed')
    .sort((a, b) => rank(a) - rank(b) || a.pod.localeCompare(b.pod))[0];
}

interface FileCheckPodInput {
  namespace: string;
  checkName: string;
  check: FileCheck;
  image: string;
  /** The pod's activeDeadlineSeconds. */
  deadlineSeconds: number;
  /** The restored pod that mounts the claim; absent when none does (the scheduler then places it). */
  beside?: ClaimUser;
}

function runsAsRoot(security: InheritedSecurity): boolean {
  return security.runAsUser === undefined ? security.runAsNonRoot !== true : security.runAsUser === 0;
}

/** The pod-level securityContext: the restored pod's user and groups, RuntimeDefault seccomp. */
function inheritedPodSecurity(security: InheritedSecurity): Record<string, unknown> {
  const groups = [...new Set([...(security.supplementalGroups ?? []), ...(security.fsGroup !== undefined ? [security.fsGroup] : [])])];
  return {
    // The restored pod ran as root (no user, runAsNonRoot not set): so does this pod, whatever the
    // image's own USER, with DAC_OVERRIDE alone to read the app's private files.
    ...(security.runAsUser !== undefined ? { runAsUser: security.runAsUser } : runsAsRoot(security) ? { runAsUser: 0 } : {}),
    ...(security.runAsGroup !== undefined ? { runAsGroup: security.runAsGroup } : {}),
    ...(security.runAsNonRoot !== undefined ? { runAsNonRoot: security.runAsNonRoot } : security.runAsUser !== undefined && security.runAsUser !== 0 ? { runAsNonRoot: true } : {}),
    ...(groups.length > 0 ? { supplementalGroups: groups } : {}),
    seccompProfile: { type: 'RuntimeDefault' },
  };
}

/** The whole Pod manifest of a file check. */
export function buildFileCheckPod(input: FileCheckPodInput): ProbePodManifest {
  const { check } = input;
  const security = input.beside?.security ?? {};
  const request: ScriptRequest = {
    sha256: check.sha256 !== undefined,
    ...(check.contains !== undefined ? { contains: check.contains } : {}),
    content: check.freshness === true && check.freshnessSource === 'content',
  };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: fileCheckPodName(input.checkName),
      namespace: input.namespace,
      labels: {
        'app.kubernetes.io/managed-by': 'rehearsal',
        'app.kubernetes.io/component': FILE_CHECK_COMPONENT,
        [FILE_CHECK_LABEL]: input.checkName,
      },
    },
    spec: {
      restartPolicy: 'Never',
      activeDeadlineSeconds: Math.max(1, Math.ceil(input.deadlineSeconds)),
      terminationGracePeriodSeconds: 1,
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      ...(input.beside?.nodeName ? { nodeName: input.beside.nodeName } : {}),
      securityContext: inheritedPodSecurity(security),
      containers: [
        {
          name: 'file-check',
          image: input.image,
          imagePullPolicy: 'IfNotPresent',
          command: fileCheckCommand(check.path, request),
          securityContext: {
            readOnlyRootFilesystem: true,
            allowPrivilegeEscalation: false,
            privileged: false,
            capabilities: { drop: ['ALL'], ...(runsAsRoot(security) ? { add: ['DAC_OVERRIDE'] } : {}) },
          },
          resources: {
            requests: { cpu: '10m', memory: '16Mi' },
            limits: { cpu: '200m', memory: '32Mi' },
          },
          volumeMounts: [{ name: 'restored', mountPath: VOLUME_MOUNT, readOnly: true }],
        },
      ],
      volumes: [{ name: 'restored', persistentVolumeClaim: { claimName: check.claim, readOnly: true } }],
    },
  };
}
