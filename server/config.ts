// The only reader of process.env. Parsed once at start-up, validated with one readable message
// that lists every bad key, then frozen.
import { isIP } from 'node:net';
import { z } from 'zod';
import { parseDuration } from './domain/common/duration.js';
import type { NotificationsSpec, Provider } from './domain/resources/resources.js';
import { shippedLicenseKeyFile } from './license/shipped-license-key.js';
import { DEFAULT_MAX_SANDBOX_TTL } from './domain/permissions/restore-permissions.js';
import { DEFAULT_POD_SECURITY_FLOOR } from './domain/run/pod-security.js';
import { DEFAULT_FILE_CHECK_IMAGE } from './domain/resources/resources.js';
import { POD_SECURITY_LEVELS, type PodSecurityLevel } from './domain/resources/resources.js';
import {
  DEFAULT_SANDBOX_CLAIM_QUOTA,
  DEFAULT_SANDBOX_STORAGE_QUOTA,
  isQuantity,
  type SandboxStorageQuota,
} from './domain/run/storage-quota.js';

const booleanString = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1');

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const schema = z.object({
  REHEARSAL_NAMESPACE: z.string().min(1).default('rehearsal-system'),
  /**
   * Where the API port listens. Loopback by default: bearer tokens travel in plain HTTP there, so
   * it is reached through `kubectl port-forward` (or the aggregated API's HTTPS port), not the network.
   */
  REHEARSAL_HOST: z.string().min(1).default('127.0.0.1'),
  REHEARSAL_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /** Health and metrics only (no tokens), on REHEARSAL_PROBE_HOST; unset = not served. */
  REHEARSAL_PROBE_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** Default: REHEARSAL_HOST. The Deployment sets 0.0.0.0 so the kubelet and Prometheus reach it. */
  REHEARSAL_PROBE_HOST: z.string().min(1).optional(),
  /** Where the aggregated API's HTTPS port listens; default: REHEARSAL_HOST (the Deployment sets 0.0.0.0). */
  REHEARSAL_AGGREGATION_HOST: z.string().min(1).optional(),
  /**
   * HTTPS port for the Kubernetes API aggregation layer (APIService v1.api.rehearsal.dev); unset =
   * not served. Needs REHEARSAL_TLS_CERT_FILE and REHEARSAL_TLS_KEY_FILE.
   */
  REHEARSAL_AGGREGATION_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** PEM serving certificate (SAN rehearsal-api.<namespace>.svc) and key of the aggregation port. */
  REHEARSAL_TLS_CERT_FILE: z.string().min(1).optional(),
  REHEARSAL_TLS_KEY_FILE: z.string().min(1).optional(),
  /** Path of a kubeconfig; unset = in-cluster config, then ~/.kube/config. */
  KUBECONFIG: z.string().optional(),
  REHEARSAL_VELERO_NAMESPACE: z.string().min(1).default('velero'),
  /**
   * The backup tool whose backups define coverage and from whose schedules tests are drafted
   * (issue 32): its Schedules (Velero), Policies (Kasten) or BackupPlans (Trilio). Tests may use
   * any provider whatever this says.
   */
  REHEARSAL_BACKUP_TOOL: z.enum(['velero', 'kasten', 'trilio']).default('velero'),
  REHEARSAL_MAX_CONCURRENT_RUNS: positiveInt(5),
  /** kubernetes = TokenReview + SubjectAccessReview; none = local development only. */
  REHEARSAL_AUTH_MODE: z.enum(['kubernetes', 'none']).default('kubernetes'),
  /**
   * Audiences a bearer token on port 8080 must be meant for (comma-separated; TokenReview). Empty =
   * kube-apiserver's own audiences (a caller's cluster token would then be accepted, and could be
   * replayed against the cluster by whoever reads it).
   */
  REHEARSAL_TOKEN_AUDIENCES: z.string().default('rehearsal.dev'),
  /**
   * Audiences a bearer token for /metrics must be meant for; empty (the default) = the apiserver's
   * own, because Prometheus sends its ServiceAccount token to every target (as to kube-rbac-proxy).
   */
  REHEARSAL_METRICS_TOKEN_AUDIENCES: z.string().default(''),
  /** Run the reconciliation loop in this process (false = API replica only). */
  REHEARSAL_CONTROLLER: booleanString.default(true),
  REHEARSAL_LEADER_ELECTION: booleanString.default(true),
  /** The server's ServiceAccount (in REHEARSAL_NAMESPACE): the subject of the per-sandbox reader RoleBinding. */
  REHEARSAL_SERVICE_ACCOUNT: z.string().min(1).default('rehearsal'),
  REHEARSAL_LEASE_NAME: z.string().default('rehearsal-controller'),
  /** Identity in the leader Lease; defaults to the pod name or host name + pid. */
  REHEARSAL_IDENTITY: z.string().optional(),
  HOSTNAME: z.string().optional(),
  /** Missed cron instants later than this are skipped rather than run on recovery. */
  REHEARSAL_MISSED_RUN_WINDOW_SECONDS: positiveInt(3600),
  /** How often an in-flight run is polled (restore phase, pod readiness). */
  REHEARSAL_POLL_INTERVAL_MS: positiveInt(2000),
  /** A run whose backup provider stays unreachable this long fails with ProviderUnavailable. */
  REHEARSAL_PROVIDER_UNAVAILABLE_SECONDS: positiveInt(600),
  /** Validating waits this long for the restored pods to be Ready, then checks anyway (decision 0012). */
  REHEARSAL_POD_READY_TIMEOUT_SECONDS: positiveInt(600),
  /** A restored claim Pending this long after a binding failure fails the run VolumeNotBound (decision 0012). */
  REHEARSAL_CLAIM_BIND_TIMEOUT_SECONDS: positiveInt(120),
  /**
   * The longest sandbox ttl anyone may set (decision 0009). Keep it equal to maxSandboxTTL of the
   * ConfigMap rehearsal-admission (the Deployment reads it from there), so API and admission agree.
   */
  REHEARSAL_MAX_SANDBOX_TTL: z
    .string()
    .default(DEFAULT_MAX_SANDBOX_TTL)
    .refine((text) => (parseDuration(text) ?? 0) > 0, 'must be a duration such as 168h (units h, m, s)'),
  /**
   * The least strict Pod Security profile a sandbox enforces (issue 28): each sandbox gets the
   * stricter of its source namespace's and this. Keep it equal to podSecurityFloor of the
   * ConfigMap rehearsal-admission (the Deployment reads it from there): a test that asks for less
   * needs the administer verb, at the API and at admission.
   */
  REHEARSAL_POD_SECURITY_FLOOR: z.enum(POD_SECURITY_LEVELS as [PodSecurityLevel, ...PodSecurityLevel[]]).default(DEFAULT_POD_SECURITY_FLOOR),
  /**
   * The storage one sandbox namespace may request (issue 27): requests.storage of the ResourceQuota
   * rehearsal-sandbox-storage, created with every sandbox before anything is restored into it.
   */
  REHEARSAL_SANDBOX_STORAGE_QUOTA: z
    .string()
    .default(DEFAULT_SANDBOX_STORAGE_QUOTA)
    .refine(isQuantity, 'must be a Kubernetes quantity such as 100Gi or 500G'),
  /** How many PersistentVolumeClaims one sandbox namespace may hold (persistentvolumeclaims of the same quota). */
  REHEARSAL_SANDBOX_CLAIM_QUOTA: z
    .string()
    .default(String(DEFAULT_SANDBOX_CLAIM_QUOTA))
    .refine((text) => /^\d{1,9}$/.test(text.trim()), 'must be a whole number of claims such as 20')
    .transform((text) => Number(text.trim())),
  /**
   * The pre-flight restorability check of each test's newest backup (issue 32, decision 0021):
   * on (default) or off.
   */
  REHEARSAL_PREFLIGHT: z.enum(['on', 'off']).default('on'),
  /**
   * Whether the pre-flight looks for the backup's images on the nodes (node, default) or not
   * (off: for clusters whose nodes pull every image anyway). An image on no node is a warning.
   */
  REHEARSAL_PREFLIGHT_IMAGES: z.enum(['node', 'off']).default('node'),
  /**
   * The image of the file checks' short-lived pods (decision 0020): it needs sh, test, stat,
   * sha256sum, grep, head, od and tr (busybox has them all). Mirror it for air-gapped clusters.
   */
  REHEARSAL_FILE_CHECK_IMAGE: z.string().trim().min(1).regex(/^\S+$/, 'an image reference without spaces').default(DEFAULT_FILE_CHECK_IMAGE),
  /** How often the janitor looks for expired or orphaned sandboxes. */
  REHEARSAL_JANITOR_INTERVAL_SECONDS: positiveInt(60),
  /**
   * The probe target-resolution seam (see server/checks/target-resolver.ts): a JSON object
   * {"service:port": "127.0.0.1:port"} for tests and the local demo. Unset = cluster DNS.
   */
  REHEARSAL_PROBE_TARGETS: z.string().optional(),
  REHEARSAL_CLUSTER_DOMAIN: z.string().default('cluster.local'),
  /**
   * Comma-separated files with license-verification public keys: a JWK or JWK Set file (the kid
   * is inside), or `kid=path` for a PEM file (a PEM carries no kid). Unset = the vendor key shipped
   * in license-keys/; set (even empty) = exactly the files listed.
   */
  REHEARSAL_LICENSE_PUBLIC_KEYS: z.string().optional(),
  /** Cluster name printed on the PDF reports (optional; "not named" otherwise). */
  REHEARSAL_CLUSTER_NAME: z.string().optional(),
  /**
   * The evidence signing key from a file (PKCS#8 PEM, Ed25519) mounted from a secret store outside
   * the cluster, instead of the Secret rehearsal-signing-key (docs/evidence.md, "Keeping the key
   * out of the cluster"). Replacing the file's content rotates the key.
   */
  REHEARSAL_SIGNING_KEY_FILE: z.string().min(1).optional(),
  /** How often that file is re-read for a rotated key. */
  REHEARSAL_SIGNING_KEY_FILE_POLL_SECONDS: positiveInt(30),
  REHEARSAL_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Labels on the Rehearsal API pods; strict NetworkPolicies admit probes from them. */
  REHEARSAL_PROBER_POD_LABELS: z.string().default('app.kubernetes.io/name=rehearsal'),
  /** The cluster DNS strict sandboxes may query: its namespace (selected by name) and pod labels. */
  REHEARSAL_DNS_NAMESPACE: z.string().regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'a namespace name').default('kube-system'),
  REHEARSAL_DNS_POD_LABELS: z.string().default('k8s-app=kube-dns'),
  /** Coverage: the shortest window in which a backed-up namespace must have a passing run (h/m/s). */
  REHEARSAL_COVERAGE_MIN_WINDOW: z
    .string()
    .regex(/^(?:\d{1,9}h)?(?:\d{1,9}m)?(?:\d{1,9}s)?$/, 'a duration such as 24h or 90m')
    .refine((text) => text.length > 0, 'a duration such as 24h or 90m')
    .default('24h'),
  /** Coverage: how often the backup tool's schedules and backups are re-read. */
  REHEARSAL_COVERAGE_REFRESH_SECONDS: positiveInt(300),
  /**
   * Notifications sent for every test without its own spec.notifications (JSON, the shape of
   * spec.notifications). Secret references name Secrets in the server's namespace.
   */
  REHEARSAL_NOTIFICATIONS: z.string().optional(),
  /** How long one notification request may take before it counts as failed (and is retried). */
  REHEARSAL_NOTIFICATION_TIMEOUT_SECONDS: positiveInt(10),
  /** Delay before the second attempt of a notification; doubles per attempt (5 attempts). */
  REHEARSAL_NOTIFICATION_BACKOFF_MS: positiveInt(2000),
  /**
   * Where notifications may not go (server/notifications/egress-guard.ts): the cluster's pod and
   * Service ranges, comma-separated CIDRs; unset = every private range (10/8, 172.16/12,
   * 192.168/16, 100.64/10, fc00::/7). Loopback, link-local and the apiserver are always refused.
   */
  REHEARSAL_NOTIFICATION_CLUSTER_CIDRS: z.string().optional(),
  /** CIDRs notifications may reach although a rule above refuses them (an administrator's choice). */
  REHEARSAL_NOTIFICATION_ALLOWED_CIDRS: z.string().default(''),
  /**
   * Failure triage reads the last log lines of crashing containers. Off where no kubelet serves
   * logs (KWOK test clusters: the apiserver would dial fake node addresses).
   */
  REHEARSAL_DIAGNOSTICS_LOGS: booleanString.default(true),
  /**
   * Evidence archive (off unless an endpoint and a bucket are set): reports past the live window
   * move from etcd to S3-compatible storage as signed, hash-chained, gzip'd segments (decision 0014).
   * Endpoint http(s)://host[:port]; path-style addressing. Credentials: AWS_ACCESS_KEY_ID,
   * AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), e.g. from a Secret.
   */
  REHEARSAL_ARCHIVE_S3_ENDPOINT: z.url().optional(),
  REHEARSAL_ARCHIVE_S3_BUCKET: z.string().min(1).optional(),
  REHEARSAL_ARCHIVE_S3_REGION: z.string().min(1).default('us-east-1'),
  /** Key prefix of every archive object (ends with "/" when not empty). */
  REHEARSAL_ARCHIVE_PREFIX: z.string().default('rehearsal/evidence/'),
  AWS_ACCESS_KEY_ID: z.string().optional(),
  AWS_SECRET_ACCESS_KEY: z.string().optional(),
  AWS_SESSION_TOKEN: z.string().optional(),
  /** A report older than this leaves etcd (h/m/s; 168h = 7 days). */
  REHEARSAL_ARCHIVE_AFTER: z
    .string()
    .default('168h')
    .refine((text) => (parseDuration(text) ?? 0) > 0, 'must be a duration such as 168h (units h, m, s)'),
  /** ...and so does any report beyond the newest N of its test (never more than its historyLimit). */
  REHEARSAL_ARCHIVE_KEEP_LIVE: positiveInt(14),
  /** Reports move in segments of at least this many (unless old or over historyLimit), at most 1,000. */
  REHEARSAL_ARCHIVE_SEGMENT_MIN: z.coerce.number().int().min(1).max(1000).default(30),
  REHEARSAL_ARCHIVE_SEGMENT_MAX: z.coerce.number().int().min(1).max(10_000).default(1000),
  /** How long a deleted test's archived evidence is kept after its deletion was seen (9600h = 400 days). */
  REHEARSAL_ARCHIVE_RETENTION: z
    .string()
    .default('9600h')
    .refine((text) => (parseDuration(text) ?? 0) > 0, 'must be a duration such as 9600h (units h, m, s)'),
  /** How often the leader runs an archive pass. */
  REHEARSAL_ARCHIVE_INTERVAL_SECONDS: positiveInt(600),
  /**
   * Evidence anchors (issue 33; off unless an endpoint and a bucket are set): every chain's head,
   * signed and time-stamped, written to a bucket with S3 Object Lock (compliance mode) every
   * interval and after every archive pass that wrote a segment. The bucket must have Object Lock
   * enabled: no anchor is written to a bucket that would let it be rewritten. Credentials of their
   * own (REHEARSAL_ANCHOR_ACCESS_KEY_ID, ...: the anchor bucket is often another account's, and
   * its key should only put and read), else the archive's AWS_ACCESS_KEY_ID, ...
   */
  REHEARSAL_ANCHOR_S3_ENDPOINT: z.url().optional(),
  REHEARSAL_ANCHOR_S3_BUCKET: z.string().min(1).optional(),
  REHEARSAL_ANCHOR_S3_REGION: z.string().min(1).default('us-east-1'),
  /** Put before anchors/ in every anchor's key (ends with "/" when not empty). */
  REHEARSAL_ANCHOR_PREFIX: z.string().default('rehearsal/'),
  /** How long the store must refuse to change or delete an anchor (h/m/s; 9600h = 400 days). */
  REHEARSAL_ANCHOR_RETENTION: z
    .string()
    .default('9600h')
    .refine((text) => (parseDuration(text) ?? 0) > 0, 'must be a duration such as 9600h (units h, m, s)'),
  REHEARSAL_ANCHOR_INTERVAL_SECONDS: positiveInt(3600),
  REHEARSAL_ANCHOR_ACCESS_KEY_ID: z.string().optional(),
  REHEARSAL_ANCHOR_SECRET_ACCESS_KEY: z.string().optional(),
  REHEARSAL_ANCHOR_SESSION_TOKEN: z.string().optional(),
  /** RFC 3161 timestamp authority for anchors (optional): its URL and the CA certificate(s) (PEM file) its tokens chain to. */
  REHEARSAL_TSA_URL: z.url().optional(),
  REHEARSAL_TSA_CA_FILE: z.string().min(1).optional(),
  /** A policy OID to ask the authority for (its default otherwise). */
  REHEARSAL_TSA_POLICY: z
    .string()
    .regex(/^[0-2](\.(0|[1-9][0-9]*))+$/, 'must be an OID such as 1.2.3.4.1')
    .optional(),
});

export type RawConfig = z.infer<typeof schema>;

export interface ArchiveConfig {
  endpoint: string;
  bucket: string;
  region: string;
  prefix: string;
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  afterSeconds: number;
  keepLive: number;
  minSegment: number;
  maxSegment: number;
  retentionSeconds: number;
  intervalSeconds: number;
}

export interface AnchorConfig {
  endpoint: string;
  bucket: string;
  region: string;
  /** Key prefix; anchors are stored under `${prefix}anchors/`. */
  prefix: string;
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  retentionSeconds: number;
  intervalSeconds: number;
  /** The timestamp authority; undefined = anchors are not time-stamped. */
  tsa?: { url: string; caFile: string; policy?: string };
}

/** The anchor settings, or undefined when no endpoint/bucket is configured (anchors off). */
function parseAnchors(raw: RawConfig): AnchorConfig | undefined {
  const endpoint = raw.REHEARSAL_ANCHOR_S3_ENDPOINT;
  const bucket = raw.REHEARSAL_ANCHOR_S3_BUCKET;
  const issues: string[] = [];
  if (raw.REHEARSAL_TSA_URL && !raw.REHEARSAL_TSA_CA_FILE) issues.push('  REHEARSAL_TSA_CA_FILE: required with REHEARSAL_TSA_URL (the authority\'s tokens are verified before they are stored)');
  if (raw.REHEARSAL_TSA_URL && !endpoint && !bucket) issues.push('  REHEARSAL_TSA_URL: time-stamps anchors, which need REHEARSAL_ANCHOR_S3_ENDPOINT and REHEARSAL_ANCHOR_S3_BUCKET');
  if (!endpoint && !bucket && issues.length === 0) return undefined;
  if (!endpoint && bucket) issues.push('  REHEARSAL_ANCHOR_S3_ENDPOINT: required with REHEARSAL_ANCHOR_S3_BUCKET');
  if (!bucket && endpoint) issues.push('  REHEARSAL_ANCHOR_S3_BUCKET: required with REHEARSAL_ANCHOR_S3_ENDPOINT');
  const ownKeys = !!(raw.REHEARSAL_ANCHOR_ACCESS_KEY_ID || raw.REHEARSAL_ANCHOR_SECRET_ACCESS_KEY);
  const accessKeyId = ownKeys ? raw.REHEARSAL_ANCHOR_ACCESS_KEY_ID : raw.AWS_ACCESS_KEY_ID;
  const secretAccessKey = ownKeys ? raw.REHEARSAL_ANCHOR_SECRET_ACCESS_KEY : raw.AWS_SECRET_ACCESS_KEY;
  const sessionToken = ownKeys ? raw.REHEARSAL_ANCHOR_SESSION_TOKEN : raw.AWS_SESSION_TOKEN;
  if (!accessKeyId) issues.push(`  ${ownKeys ? 'REHEARSAL_ANCHOR_ACCESS_KEY_ID' : 'REHEARSAL_ANCHOR_ACCESS_KEY_ID (or AWS_ACCESS_KEY_ID)'}: required when evidence anchors are on`);
  if (!secretAccessKey) issues.push(`  ${ownKeys ? 'REHEARSAL_ANCHOR_SECRET_ACCESS_KEY' : 'REHEARSAL_ANCHOR_SECRET_ACCESS_KEY (or AWS_SECRET_ACCESS_KEY)'}: required when evidence anchors are on`);
  if (issues.length > 0) throw new ConfigError(`invalid configuration:\n${issues.join('\n')}`);
  return Object.freeze({
    endpoint: endpoint!,
    bucket: bucket!,
    region: raw.REHEARSAL_ANCHOR_S3_REGION,
    prefix: raw.REHEARSAL_ANCHOR_PREFIX,
    accessKeyId: accessKeyId!,
    secretAccessKey: secretAccessKey!,
    ...(sessionToken ? { sessionToken } : {}),
    retentionSeconds: parseDuration(raw.REHEARSAL_ANCHOR_RETENTION)!,
    intervalSeconds: raw.REHEARSAL_ANCHOR_INTERVAL_SECONDS,
    ...(raw.REHEARSAL_TSA_URL
      ? { tsa: { url: raw.REHEARSAL_TSA_URL, caFile: raw.REHEARSAL_TSA_CA_FILE!, ...(raw.REHEARSAL_TSA_POLICY ? { policy: raw.REHEARSAL_TSA_POLICY } : {}) } }
      : {}),
  });
}

/** The archive settings, or undefined when no endpoint/bucket is configured (archive off). */
function parseArchive(raw: RawConfig): ArchiveConfig | undefined {
  const endpoint = raw.REHEARSAL_ARCHIVE_S3_ENDPOINT;
  const bucket = raw.REHEARSAL_ARCHIVE_S3_BUCKET;
  if (!endpoint && !bucket) return undefined;
  const issues: string[] = [];
  if (!endpoint) issues.push('  REHEARSAL_ARCHIVE_S3_ENDPOINT: required with REHEARSAL_ARCHIVE_S3_BUCKET');
  if (!bucket) issues.push('  REHEARSAL_ARCHIVE_S3_BUCKET: required with REHEARSAL_ARCHIVE_S3_ENDPOINT');
  if (!raw.AWS_ACCESS_KEY_ID) issues.push('  AWS_ACCESS_KEY_ID: required when the evidence archive is on');
  if (!raw.AWS_SECRET_ACCESS_KEY) issues.push('  AWS_SECRET_ACCESS_KEY: required when the evidence archive is on');
  if (issues.length > 0) throw new ConfigError(`invalid configuration:\n${issues.join('\n')}`);
  return Object.freeze({
    endpoint: endpoint!,
    bucket: bucket!,
    region: raw.REHEARSAL_ARCHIVE_S3_REGION,
    prefix: raw.REHEARSAL_ARCHIVE_PREFIX,
    accessKeyId: raw.AWS_ACCESS_KEY_ID!,
    secretAccessKey: raw.AWS_SECRET_ACCESS_KEY!,
    ...(raw.AWS_SESSION_TOKEN ? { sessionToken: raw.AWS_SESSION_TOKEN } : {}),
    afterSeconds: parseDuration(raw.REHEARSAL_ARCHIVE_AFTER)!,
    keepLive: raw.REHEARSAL_ARCHIVE_KEEP_LIVE,
    minSegment: raw.REHEARSAL_ARCHIVE_SEGMENT_MIN,
    maxSegment: Math.max(raw.REHEARSAL_ARCHIVE_SEGMENT_MAX, raw.REHEARSAL_ARCHIVE_SEGMENT_MIN),
    retentionSeconds: parseDuration(raw.REHEARSAL_ARCHIVE_RETENTION)!,
    intervalSeconds: raw.REHEARSAL_ARCHIVE_INTERVAL_SECONDS,
  });
}

export interface Config {
  namespace: string;
  host: string;
  port: number;
  /** The evidence archive; undefined = off (reports pruned beyond historyLimit as before). */
  archive: ArchiveConfig | undefined;
  /** Evidence anchors in write-once storage; undefined = off (reports say "not anchored"). */
  anchors: AnchorConfig | undefined;
  /** The health/metrics listener; undefined = not served. */
  probe: { host: string; port: number } | undefined;
  /** The aggregated-API listener (HTTPS); undefined = not served. */
  aggregation: AggregationConfig | undefined;
  kubeconfigPath: string | undefined;
  veleroNamespace: string;
  /** The tool coverage and test drafts read (REHEARSAL_BACKUP_TOOL). */
  backupTool: Provider;
  maxConcurrentRuns: number;
  authMode: 'kubernetes' | 'none';
  tokenAudiences: string[];
  metricsTokenAudiences: string[];
  runController: boolean;
  leaderElection: boolean;
  serviceAccount: string;
  leaseName: string;
  identity: string;
  missedRunWindowSeconds: number;
  pollIntervalMs: number;
  providerUnavailableSeconds: number;
  /** REHEARSAL_POD_READY_TIMEOUT_SECONDS: how long Validating waits for pods. */
  podReadyTimeoutSeconds: number;
  /** REHEARSAL_CLAIM_BIND_TIMEOUT_SECONDS: the VolumeNotBound bound. */
  claimBindTimeoutSeconds: number;
  janitorIntervalSeconds: number;
  maxSandboxTtlSeconds: number;
  /** The installation's Pod Security floor for sandboxes. */
  podSecurityFloor: PodSecurityLevel;
  /** The ResourceQuota of every sandbox namespace (domain/run/storage-quota.ts). */
  sandboxStorageQuota: Readonly<SandboxStorageQuota>;
  /** REHEARSAL_PREFLIGHT and REHEARSAL_PREFLIGHT_IMAGES. */
  preflight: { enabled: boolean; images: boolean };
  /** REHEARSAL_FILE_CHECK_IMAGE: the image of the file checks' pods. */
  fileCheckImage: string;
  probeTargets: Record<string, string> | undefined;
  clusterDomain: string;
  /** The files of REHEARSAL_LICENSE_PUBLIC_KEYS (without any `kid=` prefix). */
  licensePublicKeyFiles: string[];
  /** The same entries with the kid a PEM file needs (`kid=path`). */
  licensePublicKeys: LicensePublicKeyFile[];
  clusterName: string | undefined;
  /** REHEARSAL_SIGNING_KEY_FILE; undefined = the key lives in the Secret. */
  signingKeyFile: string | undefined;
  signingKeyFilePollSeconds: number;
  logLevel: RawConfig['REHEARSAL_LOG_LEVEL'];
  proberPodLabels: Record<string, string>;
  /** The cluster DNS strict sandboxes may query (engine/sandbox/network-policy.ts). */
  sandboxDns: { namespace: string; podLabels: Record<string, string> };
  /** Seconds; the shortest RPO window of the coverage view. */
  coverageMinimumWindowSeconds: number;
  coverageRefreshSeconds: number;
  /** Notifications of every test without its own spec.notifications; undefined = none. */
  notifications: NotificationsSpec | undefined;
  notificationTimeoutSeconds: number;
  notificationBackoffMs: number;
  /** undefined = the egress guard's default (every private range). */
  notificationClusterCidrs: string[] | undefined;
  notificationAllowedCidrs: string[];
  diagnosticsLogs: boolean;
}

export interface AggregationConfig {
  host: string;
  port: number;
  tlsCertFile: string;
  tlsKeyFile: string;
}

export interface LicensePublicKeyFile {
  file: string;
  /** Required for a PEM file; a JWK names its own kid. */
  kid?: string;
}

export class ConfigError extends Error {}

function parseLicenseKeyFiles(text: string | undefined): LicensePublicKeyFile[] {
  return (text ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const match = /^([A-Za-z0-9._-]+)=(.+)$/.exec(entry);
      if (!match) return { file: entry };
      return { kid: match[1]!, file: match[2]!.trim() };
    });
}

function parseLabels(text: string, variable: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const pair of text.split(',').filter(Boolean)) {
    const [key, value] = pair.split('=');
    if (!key || value === undefined) throw new ConfigError(`${variable}: "${pair}" is not key=value`);
    labels[key.trim()] = value.trim();
  }
  return labels;
}

function parseProbeTargets(text: string | undefined): Record<string, string> | undefined {
  if (!text) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError('REHEARSAL_PROBE_TARGETS: not valid JSON');
  }
  const result = z.record(z.string(), z.string()).safeParse(parsed);
  if (!result.success) throw new ConfigError('REHEARSAL_PROBE_TARGETS: must map "service:port" to "host:port"');
  return result.data;
}

const secretKeySelector = z.strictObject({ name: z.string().min(1), key: z.string().min(1) });
const notificationsSchema = z.strictObject({
  onFailure: z.boolean().optional(),
  onPartial: z.boolean().optional(),
  onSuccess: z.boolean().optional(),
  onSLAExceeded: z.boolean().optional(),
  onRegression: z.boolean().optional(),
  channels: z.array(
    z
      .strictObject({
        name: z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/),
        type: z.enum(['slack', 'webhook', 'cloudevents']),
        urlSecretRef: secretKeySelector,
        signingKeySecretRef: secretKeySelector.optional(),
      })
      .refine((channel) => channel.type !== 'webhook' || channel.signingKeySecretRef, {
        message: 'a webhook channel needs signingKeySecretRef',
      }),
  ),
});

/** The shape of spec.notifications; its Secrets are read in the server's namespace. */
function parseNotifications(text: string | undefined): NotificationsSpec | undefined {
  if (!text) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError('REHEARSAL_NOTIFICATIONS: not valid JSON');
  }
  const result = notificationsSchema.safeParse(parsed);
  if (!result.success) {
    const issues = result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
    throw new ConfigError(`REHEARSAL_NOTIFICATIONS: ${issues.join('; ')}`);
  }
  return result.data as NotificationsSpec;
}

function parseCidrs(text: string, variable: string): string[] {
  const cidrs = text.split(',').map((entry) => entry.trim()).filter(Boolean);
  for (const cidr of cidrs) {
    const [address, prefix, extra] = cidr.split('/');
    const family = isIP(address ?? '');
    const bits = Number(prefix);
    if (family === 0 || extra !== undefined || !/^\d{1,3}$/.test(prefix ?? '') || bits > (family === 6 ? 128 : 32)) {
      throw new ConfigError(`${variable}: "${cidr}" is not a CIDR such as 10.0.0.0/8 or fd00::/8`);
    }
  }
  return cidrs;
}

/** True for a host only this machine reaches: 127.0.0.0/8, ::1 (either spelling) or localhost. */
function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost' || bare === '::1' || bare === '0:0:0:0:0:0:0:1') return true;
  return isIP(bare) === 4 && bare.startsWith('127.');
}

/** Parses an environment (process.env by default); throws ConfigError naming every bad key. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Readonly<Config> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const raw = parsed.data;
  const crossFieldIssues: string[] = [];
  if (raw.REHEARSAL_AGGREGATION_PORT !== undefined) {
    if (!raw.REHEARSAL_TLS_CERT_FILE) crossFieldIssues.push('  REHEARSAL_TLS_CERT_FILE: required with REHEARSAL_AGGREGATION_PORT');
    if (!raw.REHEARSAL_TLS_KEY_FILE) crossFieldIssues.push('  REHEARSAL_TLS_KEY_FILE: required with REHEARSAL_AGGREGATION_PORT');
  }
  if (raw.REHEARSAL_AUTH_MODE === 'none' && !isLoopbackHost(raw.REHEARSAL_HOST)) {
    // Issue 30: an Ingress, HTTPRoute or any pod could then reach an API that asks nobody who they
    // are. The chart refuses to route to such a server; this holds for every other way of deploying.
    crossFieldIssues.push(
      `  REHEARSAL_AUTH_MODE: "none" answers every request anonymously, so REHEARSAL_HOST must be loopback (127.0.0.1, ::1 or localhost), not "${raw.REHEARSAL_HOST}"; use REHEARSAL_AUTH_MODE=kubernetes to serve the network`,
    );
  }
  const shippedKey = shippedLicenseKeyFile();
  const licenseKeys =
    raw.REHEARSAL_LICENSE_PUBLIC_KEYS === undefined
      ? shippedKey
        ? [{ file: shippedKey }]
        : []
      : parseLicenseKeyFiles(raw.REHEARSAL_LICENSE_PUBLIC_KEYS);
  if (crossFieldIssues.length > 0) throw new ConfigError(`invalid configuration:\n${crossFieldIssues.join('\n')}`);
  const aggregation: AggregationConfig | undefined =
    raw.REHEARSAL_AGGREGATION_PORT === undefined
      ? undefined
      : Object.freeze({
          host: raw.REHEARSAL_AGGREGATION_HOST ?? raw.REHEARSAL_HOST,
          port: raw.REHEARSAL_AGGREGATION_PORT,
          tlsCertFile: raw.REHEARSAL_TLS_CERT_FILE!,
          tlsKeyFile: raw.REHEARSAL_TLS_KEY_FILE!,
        });
  return Object.freeze({
    namespace: raw.REHEARSAL_NAMESPACE,
    host: raw.REHEARSAL_HOST,
    port: raw.REHEARSAL_PORT,
    archive: parseArchive(raw),
    anchors: parseAnchors(raw),
    probe:
      raw.REHEARSAL_PROBE_PORT === undefined
        ? undefined
        : Object.freeze({ host: raw.REHEARSAL_PROBE_HOST ?? raw.REHEARSAL_HOST, port: raw.REHEARSAL_PROBE_PORT }),
    aggregation,
    kubeconfigPath: raw.KUBECONFIG,
    veleroNamespace: raw.REHEARSAL_VELERO_NAMESPACE,
    backupTool: raw.REHEARSAL_BACKUP_TOOL,
    maxConcurrentRuns: raw.REHEARSAL_MAX_CONCURRENT_RUNS,
    authMode: raw.REHEARSAL_AUTH_MODE,
    tokenAudiences: raw.REHEARSAL_TOKEN_AUDIENCES.split(',').map((entry) => entry.trim()).filter(Boolean),
    metricsTokenAudiences: raw.REHEARSAL_METRICS_TOKEN_AUDIENCES.split(',').map((entry) => entry.trim()).filter(Boolean),
    runController: raw.REHEARSAL_CONTROLLER,
    leaderElection: raw.REHEARSAL_LEADER_ELECTION,
    serviceAccount: raw.REHEARSAL_SERVICE_ACCOUNT,
    leaseName: raw.REHEARSAL_LEASE_NAME,
    identity: raw.REHEARSAL_IDENTITY ?? `${raw.HOSTNAME ?? 'rehearsal'}-${process.pid}`,
    missedRunWindowSeconds: raw.REHEARSAL_MISSED_RUN_WINDOW_SECONDS,
    pollIntervalMs: raw.REHEARSAL_POLL_INTERVAL_MS,
    providerUnavailableSeconds: raw.REHEARSAL_PROVIDER_UNAVAILABLE_SECONDS,
    podReadyTimeoutSeconds: raw.REHEARSAL_POD_READY_TIMEOUT_SECONDS,
    claimBindTimeoutSeconds: raw.REHEARSAL_CLAIM_BIND_TIMEOUT_SECONDS,
    janitorIntervalSeconds: raw.REHEARSAL_JANITOR_INTERVAL_SECONDS,
    maxSandboxTtlSeconds: parseDuration(raw.REHEARSAL_MAX_SANDBOX_TTL)!,
    podSecurityFloor: raw.REHEARSAL_POD_SECURITY_FLOOR,
    sandboxStorageQuota: Object.freeze({ storage: raw.REHEARSAL_SANDBOX_STORAGE_QUOTA, claims: raw.REHEARSAL_SANDBOX_CLAIM_QUOTA }),
    preflight: { enabled: raw.REHEARSAL_PREFLIGHT === 'on', images: raw.REHEARSAL_PREFLIGHT_IMAGES === 'node' },
    fileCheckImage: raw.REHEARSAL_FILE_CHECK_IMAGE,
    probeTargets: parseProbeTargets(raw.REHEARSAL_PROBE_TARGETS),
    clusterDomain: raw.REHEARSAL_CLUSTER_DOMAIN,
    licensePublicKeyFiles: licenseKeys.map((entry) => entry.file),
    licensePublicKeys: licenseKeys,
    clusterName: raw.REHEARSAL_CLUSTER_NAME || undefined,
    signingKeyFile: raw.REHEARSAL_SIGNING_KEY_FILE,
    signingKeyFilePollSeconds: raw.REHEARSAL_SIGNING_KEY_FILE_POLL_SECONDS,
    logLevel: raw.REHEARSAL_LOG_LEVEL,
    proberPodLabels: parseLabels(raw.REHEARSAL_PROBER_POD_LABELS, 'REHEARSAL_PROBER_POD_LABELS'),
    sandboxDns: { namespace: raw.REHEARSAL_DNS_NAMESPACE, podLabels: parseLabels(raw.REHEARSAL_DNS_POD_LABELS, 'REHEARSAL_DNS_POD_LABELS') },
    coverageMinimumWindowSeconds: parseDuration(raw.REHEARSAL_COVERAGE_MIN_WINDOW) ?? 86_400,
    coverageRefreshSeconds: raw.REHEARSAL_COVERAGE_REFRESH_SECONDS,
    notifications: parseNotifications(raw.REHEARSAL_NOTIFICATIONS),
    notificationTimeoutSeconds: raw.REHEARSAL_NOTIFICATION_TIMEOUT_SECONDS,
    notificationBackoffMs: raw.REHEARSAL_NOTIFICATION_BACKOFF_MS,
    notificationClusterCidrs:
      raw.REHEARSAL_NOTIFICATION_CLUSTER_CIDRS === undefined
        ? undefined
        : parseCidrs(raw.REHEARSAL_NOTIFICATION_CLUSTER_CIDRS, 'REHEARSAL_NOTIFICATION_CLUSTER_CIDRS'),
    notificationAllowedCidrs: parseCidrs(raw.REHEARSAL_NOTIFICATION_ALLOWED_CIDRS, 'REHEARSAL_NOTIFICATION_ALLOWED_CIDRS'),
    diagnosticsLogs: raw.REHEARSAL_DIAGNOSTICS_LOGS,
  });
}
