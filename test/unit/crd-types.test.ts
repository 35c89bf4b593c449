// The CRDs in crds/ are the source of truth for Rehearsal's resources; server/domain/resources/resources.ts
// describes the same shapes to TypeScript. This test keeps the two from drifting apart:
//  - typed "exhaustive" examples set every field of the types (tsc fails when a field is added to
//    a type but not to its example) and their property paths must equal the schema's;
//  - enums in the schemas equal the TypeScript unions (tsc fails when a union gains a value);
//  - every sample validates against its schema, and every invalid fixture fails at the field it
//    names (structural failures here; CEL failures against the real API server in integration).
// The API server is emulated with ajv: x-kubernetes-* keywords are dropped, objects without
// additionalProperties or x-kubernetes-preserve-unknown-fields reject unknown fields (pruning under
// strict field validation), defaults are applied first, and list-type uniqueness is checked.
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { Ajv, type AnySchemaObject, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';
import { BACKUP_SELECT_STRATEGIES, LOG_COLLECTION_DEFAULTS, LOG_CONTAINERS } from '../../protocol/test-input.js';
import {
  API_VERSION,
  CHECK_KINDS,
  FILE_FRESHNESS_SOURCES,
  GROUP,
  PROVIDERS,
  VERSION,
  type BackupSelectionRecord,
  type CheckStatus,
  type Condition,
  type DependencyEntry,
  type HealthCheck,
  type HealthCheckPolicy,
  type HttpGetCheck,
  type NetworkIsolation,
  type NotificationChannelType,
  type ObjectMeta,
  type Phase,
  type PreflightStatus,
  POD_SECURITY_LEVELS,
  LABEL_SELECTOR_OPERATORS,
  type RestorePatchOperation,
  type DefaultTransformId,
  type RestoreReport,
  type RestoreTest,
  type VolumeRestoreMethod,
  type RunResult,
  type RunStage,
  type RunTrigger,
  type ScoreLevelName,
  type SqlQueryCheck,
} from '../../server/domain/resources/resources.js';
import { expandReport } from '../../server/report-codec/report-encoding.js';

// ajv-formats is CommonJS with `module.exports = plugin`; under NodeNext its default import is typed
// as the module object, at run time it is the plugin itself.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

// ------------------------------------------------------------------ types and loading

interface CelRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
}

interface Schema {
  type?: string;
  description?: string;
  format?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  maxLength?: number;
  maxItems?: number;
  maxProperties?: number;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-validations'?: CelRule[];
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  [keyword: string]: unknown;
}

interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  priority?: number;
}

interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  subresources?: { status?: object };
  additionalPrinterColumns?: PrinterColumn[];
  selectableFields?: { jsonPath: string }[];
  schema: { openAPIV3Schema: Schema };
}

interface Crd {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: {
    group: string;
    scope: string;
    names: {
      kind: string;
      listKind: string;
      plural: string;
      singular: string;
      shortNames: string[];
      categories: string[];
    };
    versions: CrdVersion[];
  };
}

type KindName = 'RestoreTest' | 'RestoreReport' | 'HealthCheckPolicy';
const KINDS: readonly KindName[] = ['RestoreTest', 'RestoreReport', 'HealthCheckPolicy'];

// kubectl reads YAML 1.1 (where y, no, on... are booleans); read the files the way it will.
const parseYaml = (text: string): unknown => parse(text, { version: '1.1' });

const repoRoot = new URL('../../', import.meta.url);
const readText = (relative: string): string => readFileSync(new URL(relative, repoRoot), 'utf8');
const listYaml = (relativeDir: string): string[] =>
  readdirSync(new URL(relativeDir, repoRoot))
    .filter((file) => file.endsWith('.yaml'))
    .sort();

const CRD_FILES: Record<KindName, string> = {
  RestoreTest: 'crds/rehearsal.dev_restoretests.yaml',
  RestoreReport: 'crds/rehearsal.dev_restorereports.yaml',
  HealthCheckPolicy: 'crds/rehearsal.dev_healthcheckpolicies.yaml',
};

const crds = Object.fromEntries(
  KINDS.map((kind) => [kind, parseYaml(readText(CRD_FILES[kind])) as Crd]),
) as Record<KindName, Crd>;

function version(kind: KindName): CrdVersion {
  const only = crds[kind].spec.versions[0];
  if (!only) throw new Error(`${kind}: no version`);
  return only;
}

const rootSchema = (kind: KindName): Schema => version(kind).schema.openAPIV3Schema;

function isKindName(value: unknown): value is KindName {
  return typeof value === 'string' && (KINDS as readonly string[]).includes(value);
}

// ------------------------------------------------------------------ schema walking

// Paths are written like spec.backupSource.namespaces[].name; the values of a map (an object with
// additionalProperties, or one that preserves unknown fields) are written path{}.
interface SchemaNode {
  path: string;
  schema: Schema;
  /** A named property (as opposed to array items or map values). */
  isProperty: boolean;
}

function walkSchema(root: Schema): SchemaNode[] {
  const nodes: SchemaNode[] = [];
  const visit = (schema: Schema, path: string, isProperty: boolean): void => {
    nodes.push({ path, schema, isProperty });
    for (const [name, child] of Object.entries(schema.properties ?? {})) {
      // ObjectMeta is the API server's; the CRD may only restrict name and generateName.
      if (path === '' && name === 'metadata') continue;
      visit(child, path ? `${path}.${name}` : name, true);
    }
    if (schema.items) visit(schema.items, `${path}[]`, false);
    if (typeof schema.additionalProperties === 'object')
      visit(schema.additionalProperties, `${path}{}`, false);
    else if (schema['x-kubernetes-preserve-unknown-fields'] && !schema.properties) {
      nodes.push({ path: `${path}{}`, schema: {}, isProperty: false });
    }
  };
  visit(root, '', false);
  return nodes.filter((node) => node.path !== '');
}

const schemaPaths = (kind: KindName): string[] =>
  walkSchema(rootSchema(kind))
    .map((node) => node.path)
    .sort();

function schemaAt(root: Schema, path: string): Schema | undefined {
  return walkSchema(root).find((node) => node.path === path)?.schema;
}

/** Property paths of an example object; paths in mapPaths are maps (their keys are data). */
function examplePaths(value: unknown, mapPaths: ReadonlySet<string>, path = ''): string[] {
  const paths: string[] = path ? [path] : [];
  if (mapPaths.has(path)) return [...paths, `${path}{}`];
  if (Array.isArray(value)) {
    if (value.length === 0) throw new Error(`example array ${path} is empty: put one item in it`);
    for (const item of value) paths.push(...examplePaths(item, mapPaths, `${path}[]`));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (path === '' && key === 'metadata') continue;
      paths.push(...examplePaths(child, mapPaths, path ? `${path}.${key}` : key));
    }
  }
  return [...new Set(paths)].sort();
}

// ------------------------------------------------------------------ API server emulation

/** The CRD schema as plain JSON Schema, with pruning of unknown fields made explicit. */
function toJsonSchema(schema: Schema, path = ''): AnySchemaObject {
  const out: AnySchemaObject = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword.startsWith('x-kubernetes-')) continue;
    if (keyword === 'properties') {
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, Schema>).map(([name, child]) => [
          name,
          toJsonSchema(child, path ? `${path}.${name}` : name),
        ]),
      );
    } else if (keyword === 'items') {
      out.items = toJsonSchema(value as Schema, `${path}[]`);
    } else if (keyword === 'additionalProperties' && typeof value === 'object') {
      out.additionalProperties = toJsonSchema(value as Schema, `${path}{}`);
    } else {
      out[keyword] = value;
    }
  }
  const open =
    schema.additionalProperties !== undefined ||
    schema['x-kubernetes-preserve-unknown-fields'] === true ||
    path === 'metadata';
  if (schema.type === 'object' && !open) out.additionalProperties = false;
  return out;
}

function newAjv(): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: true, useDefaults: true });
  addFormats(ajv, ['date-time']);
  ajv.addFormat('int32', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  return ajv;
}

const ajv = newAjv();
const validators = Object.fromEntries(
  KINDS.map((kind) => [kind, ajv.compile(toJsonSchema(rootSchema(kind)))]),
) as Record<KindName, ReturnType<Ajv['compile']>>;

interface Violation {
  field: string;
  message: string;
}

function joinField(base: string, name: string): string {
  return base ? `${base}.${name}` : name;
}

function ajvField(error: ErrorObject): string {
  const field = error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce((acc, segment) => (/^\d+$/.test(segment) ? `${acc}[${segment}]` : joinField(acc, segment)), '');
  if (error.keyword === 'required') return joinField(field, String(error.params.missingProperty));
  if (error.keyword === 'additionalProperties')
    return joinField(field, String(error.params.additionalProperty));
  return field;
}

/** Duplicate keys in x-kubernetes-list-type map/set lists, named like the API server does. */
function listTypeViolations(schema: Schema, value: unknown, field = ''): Violation[] {
  const violations: Violation[] = [];
  if (Array.isArray(value) && schema.items) {
    const listType = schema['x-kubernetes-list-type'];
    const keys = schema['x-kubernetes-list-map-keys'] ?? [];
    const seen = new Set<string>();
    value.forEach((item: unknown, index) => {
      const key =
        listType === 'map'
          ? JSON.stringify(keys.map((k) => (item as Record<string, unknown>)[k]))
          : JSON.stringify(item);
      if ((listType === 'map' || listType === 'set') && seen.has(key)) {
        violations.push({ field: `${field}[${index}]`, message: `Duplicate value: ${key}` });
      }
      seen.add(key);
      violations.push(...listTypeViolations(schema.items as Schema, item, `${field}[${index}]`));
    });
  } else if (value !== null && typeof value === 'object') {
    for (const [name, child] of Object.entries(value)) {
      const childSchema =
        schema.properties?.[name] ??
        (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
      if (childSchema) violations.push(...listTypeViolations(childSchema, child, joinField(field, name)));
    }
  }
  return violations;
}

/** What the API server would reject before CEL runs. Applies defaults to a copy and returns it. */
function validate(kind: KindName, object: unknown): { violations: Violation[]; defaulted: unknown } {
  const defaulted: unknown = structuredClone(object);
  const validator = validators[kind];
  const violations: Violation[] = validator(defaulted)
    ? []
    : (validator.errors ?? []).map((error) => ({
        field: ajvField(error),
        message: error.message ?? error.keyword,
      }));
  violations.push(...listTypeViolations(rootSchema(kind), defaulted));
  return { violations, defaulted };
}

// ------------------------------------------------------------------ exhaustive typed examples

/** T with every optional field required, all the way down. Maps (Record) keep their index type. */
type Exhaustive<T> = T extends readonly (infer Item)[]
  ? Exhaustive<Item>[]
  : T extends object
    ? { [Key in keyof T]-?: Exhaustive<T[Key]> }
    : T;
type ExhaustiveResource<T extends { metadata: ObjectMeta }> = Exhaustive<Omit<T, 'metadata'>> & {
  metadata: ObjectMeta;
};

/** Every value of a string union: tsc rejects a missing or an extra key. */
function valuesOf<T extends string>(all: Record<T, true>): T[] {
  return Object.keys(all) as T[];
}

// One check with every block set: only the CEL rule forbids this, and it is about keys, not sense.
const exhaustiveCheck: Exhaustive<HealthCheck> = {
  name: 'everything',
  kind: 'httpGet',
  timeout: '30s',
  sourceNamespace: 'shop',
  critical: true,
  podsReady: { selector: { app: 'web' }, minReady: 1 },
  httpGet: {
    service: 'web',
    port: 8080,
    path: '/healthz',
    scheme: 'https',
    expectedStatus: 204,
    bodyMatch: 'ok',
  },
  tcpSocket: { service: 'db', port: 5432 },
  sqlQuery: {
    engine: 'postgres',
    service: 'db',
    port: 5432,
    database: 'shop',
    credentialsSecret: { name: 'db-app', usernameKey: 'username', passwordKey: 'password' },
    query: 'SELECT 1',
    expectedMinRows: 1,
    expectedValue: '1',
    freshness: true,
  },
  resourceExists: { apiVersion: 'v1', kind: 'Secret', name: 'tls', sourceNamespace: 'shop' },
  exec: { selector: { app: 'web' }, container: 'web', command: ['true'], expectedExitCode: 0, freshness: false },
  file: {
    claim: 'data-db-0',
    path: '/pgdata/rehearsal-sentinel',
    exists: true,
    size: 33,
    sha256: 'a'.repeat(64),
    contains: 'sentinel-2026',
    freshness: true,
    freshnessSource: 'content',
  },
};

const exhaustiveRestoreTest: ExhaustiveResource<RestoreTest> = {
  apiVersion: API_VERSION,
  kind: 'RestoreTest',
  metadata: { name: 'shop' },
  spec: {
    provider: 'velero',
    backupSource: {
      backupName: 'latest',
      select: { strategy: 'randomWithin', within: '720h' },
      namespaces: [{ name: 'shop' }],
      providerNamespace: 'velero',
      labelSelector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['front'] }] },
      includedResources: [{ group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments' }],
    },
    schedule: { cron: '0 2 * * *', timezone: 'UTC', suspend: false, onBackup: { everyNth: 1 } },
    sandbox: {
      namespacePrefix: 'rehearsal',
      ttl: '1h',
      networkIsolation: 'strict',
      resourceQuota: { hard: { pods: '10' } },
      limitRange: { limits: [{ type: 'Container', max: { memory: '1Gi' } }] },
    },
    sla: { maxRTO: '15m', maxRPO: '24h', alertOnExceed: true },
    healthCheckPolicy: 'baseline',
    healthChecks: { checks: [exhaustiveCheck] },
    restore: {
      exclude: [{ group: 'example.com', version: 'v1', kind: 'Widget', resource: 'widgets' }],
      patches: [
        {
          name: 'one-replica',
          target: { group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments', name: 'web' },
          when: [{ path: '/spec/replicas', value: { any: 'json' } }],
          operations: [{ op: 'move', path: '/spec/replicas', from: '/spec/x', value: { any: 'json' } }],
        },
      ],
      removeDefaults: ['exclude-gitops'],
      podSecurity: 'restricted',
    },
    historyLimit: 90,
    logCollection: { lines: 100, containers: 'all', initContainers: true, previous: true, events: true },
    notifications: {
      onFailure: true,
      onPartial: true,
      onSuccess: false,
      onSLAExceeded: true,
      onRegression: true,
      channels: [
        {
          name: 'team',
          type: 'webhook',
          urlSecretRef: { name: 'hooks', key: 'url' },
          signingKeySecretRef: { name: 'hooks', key: 'hmac' },
        },
      ],
    },
  },
  status: {
    observedGeneration: 3,
    phase: 'Running',
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        observedGeneration: 3,
        lastTransitionTime: '2025-03-01T02:00:00Z',
        reason: 'RunStarted',
        message: 'run k3m9x2 started',
      },
    ],
    lastScore: 97,
    lastResult: 'pass',
    lastRunAt: '2025-03-01T02:14:00Z',
    nextRunAt: '2025-03-02T02:00:00Z',
    lastReport: 'shop-a1b2c3',
    lastScheduleTime: '2025-03-02T02:00:00Z',
    handledTrigger: 'req-1',
    backupTrigger: { lastSeen: { name: 'daily-20250302', completedAt: '2025-03-02T01:00:00Z' }, countSinceRun: 0, lastRunBackup: 'daily-20250302' },
    evidenceAnchor: { sequence: 7, digest: 'sha256:00', report: 'shop-20250302-0200' },
    preflight: {
      backupName: 'daily-20250302',
      backupCompletedAt: '2025-03-02T01:00:00Z',
      checkedAt: '2025-03-02T01:00:05Z',
      result: 'failed',
      summary: 'failed: StorageClass fast does not exist (claims shop/data)',
      problems: [{ check: 'storageClasses', severity: 'error', message: 'StorageClass fast does not exist (claims shop/data)' }],
    },
    currentRun: {
      id: 'k3m9x2',
      trigger: 'schedule',
      scheduledAt: '2025-03-02T02:00:00Z',
      triggerBackup: 'daily-20250302',
      queuedAt: '2025-03-02T02:00:00Z',
      startedAt: '2025-03-02T02:00:01Z',
      stage: 'Validating',
      sandboxNamespaces: [{ source: 'shop', sandbox: 'rehearsal-shop-k3m9x2', uid: '0f5d3a8e-4b1c-4a8e-9d3e-2f6b7c8d9e0a' }],
      backup: {
        name: 'daily-20250302',
        completedAt: '2025-03-02T01:00:00Z',
        totalItems: 31,
        selection: {
          strategy: 'randomWithin',
          within: '720h',
          windowStart: '2025-01-31T02:00:01.000Z',
          windowEnd: '2025-03-02T02:00:01.000Z',
          seed: '0a1b2c3d',
          candidates: 7,
          chosen: 3,
          fallback: false,
          reason: 'random within 720h: 7 candidate(s), chose #3 newest first',
        },
      },
      restore: { namespace: 'velero', name: 'shop-k3m9x2', namespaces: ['rehearsal-shop-k3m9x2', 'rehearsal-shop-k3m9x2-1'] },
      restoreRequestedAt: '2025-03-02T02:00:05Z',
      restoreCompletedAt: '2025-03-02T02:05:00Z',
      restorePhase: 'Completed',
      podsReadyAt: '2025-03-02T02:07:00Z',
      providerUnavailableSince: '2025-03-02T02:06:00Z',
      failure: { reason: 'TTLExceeded', message: 'the run was still going at its ttl' },
    },
  },
};

// spec.details, spec.rtoMeasured, spec.test and spec.backupName are the stored form of the other fields
// (report-codec/report-encoding.ts), not fields of the report the engine works with: the example
// carries both forms to cover every schema path.
const exhaustiveRestoreReport: ExhaustiveResource<
  RestoreReport & { spec: { details: string; rtoMeasured: string; test: string; backupName: string } }
> = {
  apiVersion: API_VERSION,
  kind: 'RestoreReport',
  metadata: { name: 'shop-k3m9x2' },
  spec: {
    testRef: { name: 'shop', namespace: 'rehearsal-system', uid: '0b6f2a4e-9d1c-4f3a-8e2b-5c7d9a1e3f60' },
    runId: 'k3m9x2',
    details: '{}',
    rtoMeasured: '8m59s',
    test: 'shop',
    backupName: 'daily-20250302',
    trigger: 'manual',
    scheduledAt: '2025-03-02T02:00:00Z',
    startedAt: '2025-03-02T02:00:01Z',
    completedAt: '2025-03-02T02:09:00Z',
    sourceNamespaces: ['shop'],
    backup: {
      provider: 'velero',
      name: 'daily-20250302',
      completedAt: '2025-03-02T01:00:00Z',
      age: '1h0m1s',
      selection: {
      strategy: 'randomWithin',
      within: '720h',
      windowStart: '2025-01-31T02:00:01.000Z',
      windowEnd: '2025-03-02T02:00:01.000Z',
      seed: '0a1b2c3d',
      candidates: 7,
      chosen: 3,
      fallback: false,
      reason: 'random within 720h: 7 candidate(s), chose #3 newest first',
    },
    },
    sandboxNamespaces: ['rehearsal-shop-k3m9x2'],
    restore: {
      name: 'shop-k3m9x2',
      namespace: 'velero',
      phase: 'Failed',
      warnings: 0,
      errors: 3,
      itemsRestored: 0,
      subset: 'labels app=web; types deployments.apps',
    },
    score: 0,
    result: 'fail',
    levels: [{ name: 'restoreIntegrity', points: 0, maxPoints: 25, tested: true, detail: 'restore Failed' }],
    checks: [
      { name: 'orders-fresh', kind: 'sqlQuery', status: 'pass', message: 'newest data 2025-03-01T23:58:00.000Z', duration: '0.2s', newestData: '2025-03-01T23:58:00.000Z' },
    ],
    checkSummary: '1/1 passed',
    completeness: [{ kind: 'Deployment', backedUp: 2, restored: 0 }],
    dependencies: [
      { from: 'ConfigMap/shop/app-config', to: 'db.payments', status: 'production', message: 'names its own source namespace' },
    ],
    transforms: {
      applied: [{ transform: 'suspend-cronjobs', kind: 'CronJob', namespace: 'shop', name: 'billing', change: 'spec.suspend set to true' }],
      more: 3,
      removedDefaults: ['exclude-gitops'],
    },
    podSecurity: { floor: 'baseline', namespaces: [{ source: 'shop', sourceLevel: 'restricted', level: 'restricted' }] },
    volumes: [
      {
        namespace: 'rehearsal-shop-k3m9x2',
        pod: 'db-0',
        volume: 'data',
        claim: 'data-db-0',
        method: 'file-system',
        phase: 'Failed',
        dataRestored: false,
        bytes: 0,
        durationSeconds: 2,
        message: 'error to connect to backup repo',
      },
    ],
    rpo: {
      check: 'orders-fresh',
      newestData: '2025-03-01T23:58:00.000Z',
      measured: '2h2m5s',
      measuredSeconds: 7325,
      target: '24h',
      withinSLA: true,
    },
    rto: {
      measured: '9m',
      measuredSeconds: 540,
      target: '15m',
      withinSLA: true,
      phases: {
        restoreRequestedAt: '2025-03-02T02:00:05Z',
        restoreCompletedAt: '2025-03-02T02:05:00Z',
        podsReadyAt: '2025-03-02T02:07:00Z',
        checksCompletedAt: '2025-03-02T02:09:00Z',
      },
    },
    sandboxExpiresAt: '2025-03-02T03:00:01Z',
    resultCap: { check: 'orders', critical: true, result: 'fail' },
    failure: { reason: 'RestoreFailed', message: 'velero Restore shop-k3m9x2 Failed' },
    evidence: {
      digest: 'sha256:00',
      previousDigest: 'sha256:ff',
      sequence: 7,
      signature: 'c2ln',
      keyId: 'k1',
      algorithm: 'Ed25519',
      canonicalization: 'RFC8785',
    },
  },
};

const exhaustiveHealthCheckPolicy: ExhaustiveResource<HealthCheckPolicy> = {
  apiVersion: API_VERSION,
  kind: 'HealthCheckPolicy',
  metadata: { name: 'baseline' },
  spec: { description: 'everything', sourceNamespaces: ['shop'], checks: [exhaustiveCheck] },
};

const EXHAUSTIVE: Record<KindName, { apiVersion: string; kind: KindName }> = {
  RestoreTest: exhaustiveRestoreTest,
  RestoreReport: exhaustiveRestoreReport,
  HealthCheckPolicy: exhaustiveHealthCheckPolicy,
};

// Record<string, ...> fields of resources.ts: their keys are data, not schema.
const checkMapPaths = (prefix: string): string[] => [
  `${prefix}.podsReady.selector`,
  `${prefix}.exec.selector`,
];
const MAP_PATHS: Record<KindName, ReadonlySet<string>> = {
  RestoreTest: new Set([
    'spec.restore.patches[].when[].value',
    'spec.restore.patches[].operations[].value',
    'spec.sandbox.resourceQuota.hard',
    'spec.sandbox.limitRange.limits[]',
    'spec.backupSource.labelSelector.matchLabels',
    ...checkMapPaths('spec.healthChecks.checks[]'),
  ]),
  RestoreReport: new Set(),
  HealthCheckPolicy: new Set(checkMapPaths('spec.checks[]')),
};

// The TypeScript unions, complete by construction (see valuesOf).
const TRANSFORM_IDS = valuesOf<DefaultTransformId>({
  'suspend-cronjobs': true,
  'hold-jobs': true,
  'services-cluster-ip': true,
  'drop-external-dns-annotations': true,
  'unbind-claims': true,
  'exclude-host-routes': true,
  'exclude-external-callers': true,
  'exclude-gitops': true,
  'exclude-network-policies': true,
});
const RESULTS = valuesOf<RunResult>({ pass: true, partial: true, fail: true });
const TRIGGERS = valuesOf<RunTrigger>({ schedule: true, manual: true, backup: true });
const SCHEMES = valuesOf<NonNullable<HttpGetCheck['scheme']>>({ http: true, https: true });
const ENGINES = valuesOf<SqlQueryCheck['engine']>({ postgres: true, mysql: true });
const checkEnums = (prefix: string): Record<string, readonly string[]> => ({
  [`${prefix}.kind`]: CHECK_KINDS,
  [`${prefix}.httpGet.scheme`]: SCHEMES,
  [`${prefix}.sqlQuery.engine`]: ENGINES,
  [`${prefix}.file.freshnessSource`]: FILE_FRESHNESS_SOURCES,
});
const ENUMS: Record<KindName, Record<string, readonly string[]>> = {
  RestoreTest: {
    'spec.provider': PROVIDERS,
    'spec.backupSource.select.strategy': BACKUP_SELECT_STRATEGIES,
    'status.currentRun.backup.selection.strategy': valuesOf<BackupSelectionRecord['strategy']>({ randomWithin: true }),
    'spec.sandbox.networkIsolation': valuesOf<NetworkIsolation>({ strict: true, none: true }),
    'spec.notifications.channels[].type': valuesOf<NotificationChannelType>({ slack: true, webhook: true, cloudevents: true }),
    ...checkEnums('spec.healthChecks.checks[]'),
    'spec.restore.patches[].operations[].op': valuesOf<RestorePatchOperation['op']>({ add: true, replace: true, remove: true, copy: true, move: true }),
    'spec.restore.removeDefaults[]': TRANSFORM_IDS,
    'spec.restore.podSecurity': POD_SECURITY_LEVELS,
    'spec.logCollection.containers': LOG_CONTAINERS,
    'spec.backupSource.labelSelector.matchExpressions[].operator': LABEL_SELECTOR_OPERATORS,
    'status.phase': valuesOf<Phase>({ Idle: true, Running: true, Completed: true, Failed: true }),
    'status.conditions[].status': valuesOf<Condition['status']>({ True: true, False: true, Unknown: true }),
    'status.lastResult': RESULTS,
    'status.preflight.result': valuesOf<PreflightStatus['result']>({ passed: true, failed: true, error: true }),
    'status.preflight.problems[].check': valuesOf<NonNullable<PreflightStatus['problems']>[number]['check']>({
      apiVersions: true,
      storageClasses: true,
      references: true,
      images: true,
      quota: true,
    }),
    'status.preflight.problems[].severity': valuesOf<NonNullable<PreflightStatus['problems']>[number]['severity']>({ error: true, warning: true }),
    'status.currentRun.trigger': TRIGGERS,
    'status.currentRun.stage': valuesOf<RunStage>({
      Queued: true,
      Preparing: true,
      Restoring: true,
      Validating: true,
      Finalizing: true,
    }),
  },
  RestoreReport: {
    'spec.trigger': TRIGGERS,
    'spec.backup.provider': PROVIDERS,
    'spec.backup.selection.strategy': valuesOf<BackupSelectionRecord['strategy']>({ randomWithin: true }),
    'spec.result': RESULTS,
    'spec.resultCap.result': ['partial', 'fail'],
    'spec.levels[].name': valuesOf<ScoreLevelName>({
      restoreIntegrity: true,
      completeness: true,
      podStartup: true,
      healthChecks: true,
      crossNamespace: true,
      rtoWithinSLA: true,
    }),
    'spec.checks[].kind': CHECK_KINDS,
    'spec.checks[].status': valuesOf<CheckStatus>({ pass: true, fail: true, skip: true, error: true }),
    'spec.dependencies[].status': valuesOf<DependencyEntry['status']>({
      restored: true,
      reachable: true,
      missing: true,
      unreachable: true,
      production: true,
    }),
    'spec.transforms.removedDefaults[]': TRANSFORM_IDS,
    'spec.podSecurity.floor': POD_SECURITY_LEVELS,
    'spec.podSecurity.namespaces[].sourceLevel': POD_SECURITY_LEVELS,
    'spec.podSecurity.namespaces[].level': POD_SECURITY_LEVELS,
    'spec.volumes[].method': valuesOf<VolumeRestoreMethod>({ 'file-system': true, 'csi-data-mover': true, 'csi-snapshot': true, 'provider-data-mover': true }),
    'spec.evidence.algorithm': ['Ed25519'],
    'spec.evidence.canonicalization': ['RFC8785'],
  },
  HealthCheckPolicy: checkEnums('spec.checks[]'),
};

// The defaults of decision 0003; nothing else is defaulted by the API server. Not the sandbox ttl
// (issue 30): absent, the cluster default applies at run time, so the apiserver must not stamp 1h.
const DEFAULTS: Record<KindName, Record<string, unknown>> = {
  RestoreTest: {
    'spec.backupSource.backupName': 'latest',
    'spec.schedule.timezone': 'UTC',
    'spec.schedule.suspend': false,
    'spec.schedule.onBackup.everyNth': 1,
    'spec.sandbox': {},
    'spec.sandbox.namespacePrefix': 'rehearsal',
    'spec.sandbox.networkIsolation': 'strict',
    'spec.sla.alertOnExceed': false,
    'spec.historyLimit': 90,
    // The API's defaults of the same fields (issue 30); they apply when the test has logCollection.
    'spec.logCollection.lines': LOG_COLLECTION_DEFAULTS.lines,
    'spec.logCollection.containers': LOG_COLLECTION_DEFAULTS.containers,
    'spec.logCollection.initContainers': LOG_COLLECTION_DEFAULTS.initContainers,
    'spec.logCollection.previous': LOG_COLLECTION_DEFAULTS.previous,
    'spec.logCollection.events': LOG_COLLECTION_DEFAULTS.events,
  },
  RestoreReport: {},
  HealthCheckPolicy: {},
};

// ------------------------------------------------------------------ samples and fixtures

interface YamlFile {
  file: string;
  object: { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown } };
}

const samples: YamlFile[] = listYaml('crds/samples/').map((file) => ({
  file,
  object: parseYaml(readText(`crds/samples/${file}`)) as YamlFile['object'],
}));

type Enforcement = 'schema' | 'unknown-field' | 'list-type' | 'cel';
interface InvalidFixture extends YamlFile {
  invalid: string;
  field: string;
  enforcedBy: Enforcement;
}

const invalidFixtures: InvalidFixture[] = listYaml('test/fixtures/invalid/').map((file) => {
  const text = readText(`test/fixtures/invalid/${file}`);
  const header = (name: string): string => {
    const match = new RegExp(`^# ${name}: (.+)$`, 'm').exec(text);
    if (!match?.[1]) throw new Error(`${file}: header line "# ${name}: ..." is missing`);
    return match[1].trim();
  };
  const enforcedBy = header('enforced-by');
  if (!['schema', 'unknown-field', 'list-type', 'cel'].includes(enforcedBy)) {
    throw new Error(`${file}: unknown enforced-by ${enforcedBy}`);
  }
  return {
    file,
    object: parseYaml(text) as YamlFile['object'],
    invalid: header('INVALID'),
    field: header('field'),
    enforcedBy: enforcedBy as Enforcement,
  };
});

function celRules(kind: KindName): { field: string; rule: CelRule }[] {
  return walkSchema(rootSchema(kind)).flatMap((node) =>
    (node.schema['x-kubernetes-validations'] ?? []).map((rule) => ({
      field: `${node.path}${rule.fieldPath ?? ''}`,
      rule,
    })),
  );
}

const indexFree = (field: string): string => field.replace(/\[\d+\]/g, '[]');

// ------------------------------------------------------------------ tests

describe('CRD definitions', () => {
  const expected: Record<KindName, { plural: string; singular: string; shortName: string; status: boolean }> =
    {
      RestoreTest: { plural: 'restoretests', singular: 'restoretest', shortName: 'rtest', status: true },
      RestoreReport: {
        plural: 'restorereports',
        singular: 'restorereport',
        shortName: 'rrep',
        status: false,
      },
      HealthCheckPolicy: {
        plural: 'healthcheckpolicies',
        singular: 'healthcheckpolicy',
        shortName: 'hcp',
        status: false,
      },
    };

  it('crds/ holds exactly the three CRDs (and the kustomization that lists them)', () => {
    expect(listYaml('crds/').filter((file) => file !== 'kustomization.yaml')).toEqual(
      Object.values(CRD_FILES)
        .map((file) => file.replace('crds/', ''))
        .sort(),
    );
  });

  it.each(KINDS)('%s has the agreed names, scope and single served storage version', (kind) => {
    const crd = crds[kind];
    const want = expected[kind];
    expect(crd.apiVersion).toBe('apiextensions.k8s.io/v1');
    expect(crd.kind).toBe('CustomResourceDefinition');
    expect(crd.metadata.name).toBe(`${want.plural}.${GROUP}`);
    expect(crd.spec.group).toBe(GROUP);
    expect(crd.spec.scope).toBe('Namespaced');
    expect(crd.spec.names).toEqual({
      kind,
      listKind: `${kind}List`,
      plural: want.plural,
      singular: want.singular,
      shortNames: [want.shortName],
      categories: ['rehearsal'],
    });
    expect(crd.spec.versions).toHaveLength(1);
    expect(version(kind)).toMatchObject({ name: VERSION, served: true, storage: true });
    expect(version(kind).subresources?.status !== undefined).toBe(want.status);
    expect(rootSchema(kind).required).toEqual(['spec']);
  });

  it.each(KINDS)('%s printer columns and selectable fields point at fields of the right type', (kind) => {
    const root = rootSchema(kind);
    const columns = version(kind).additionalPrinterColumns ?? [];
    for (const column of columns) {
      const path = column.jsonPath.replace(/^\./, '');
      if (path === 'metadata.creationTimestamp') {
        expect(column).toMatchObject({ name: 'Age', type: 'date' });
        continue;
      }
      const target = schemaAt(root, path);
      expect({ column: column.name, found: target !== undefined }).toEqual({
        column: column.name,
        found: true,
      });
      if (column.type === 'date') expect(target?.format).toBe('date-time');
      if (column.type === 'integer') expect(target?.type).toBe('integer');
      if (column.type === 'string') expect(target?.type).toBe('string');
    }
    for (const selectable of version(kind).selectableFields ?? []) {
      expect(['string', 'integer', 'boolean']).toContain(
        schemaAt(root, selectable.jsonPath.replace(/^\./, ''))?.type,
      );
    }
  });

  it('shows the agreed printer columns', () => {
    const names = (kind: KindName): string[] =>
      (version(kind).additionalPrinterColumns ?? []).map((c) => c.name);
    expect(names('RestoreTest')).toEqual([
      'Phase',
      'Last Score',
      'Last Result',
      'Last Run',
      'Next Run',
      'Age',
    ]);
    expect(names('RestoreReport')).toEqual([
      'Test',
      'Backup',
      'Result',
      'Score',
      'Checks',
      'RTO',
      'Completed',
      'Age',
      'Older RTO',
      'Older Test',
      'Older Backup',
    ]);
    // The RTO of reports stored since issue 17's third cut is the top-level string rtoMeasured;
    // reports stored before keep rto.measured, shown with -o wide (priority 1).
    const rto = (name: string) => version('RestoreReport').additionalPrinterColumns?.find((c) => c.name === name);
    expect([rto('RTO')?.jsonPath, rto('RTO')?.priority ?? 0]).toEqual(['.spec.rtoMeasured', 0]);
    expect([rto('Older RTO')?.jsonPath, rto('Older RTO')?.priority]).toEqual(['.spec.rto.measured', 1]);
    // Likewise the test's name: the top-level string test since the fifth cut, testRef.name before.
    expect([rto('Test')?.jsonPath, rto('Test')?.priority ?? 0]).toEqual(['.spec.test', 0]);
    expect([rto('Older Test')?.jsonPath, rto('Older Test')?.priority]).toEqual(['.spec.testRef.name', 1]);
    // Issue 30: the backup restored and the checks in one line, top-level strings of every new
    // report; reports stored unpacked (before issue 17) show backup.name with -o wide.
    expect([rto('Backup')?.jsonPath, rto('Backup')?.priority ?? 0]).toEqual(['.spec.backupName', 0]);
    expect([rto('Older Backup')?.jsonPath, rto('Older Backup')?.priority]).toEqual(['.spec.backup.name', 1]);
    expect([rto('Checks')?.jsonPath, rto('Checks')?.priority ?? 0]).toEqual(['.spec.checkSummary', 0]);
    expect(names('HealthCheckPolicy')).toEqual(['Description', 'Age']);
    // A date column shows the time since a timestamp, and <invalid> for a future one.
    const nextRun = version('RestoreTest').additionalPrinterColumns?.find((c) => c.name === 'Next Run');
    expect(nextRun?.type).toBe('string');
  });
});

describe('CRD schemas are structural and documented', () => {
  it.each(KINDS)('%s: every node has a type, every field a description', (kind) => {
    const untyped: string[] = [];
    const undocumented: string[] = [];
    for (const node of walkSchema(rootSchema(kind))) {
      const typeless =
        node.schema['x-kubernetes-int-or-string'] === true ||
        (node.path.endsWith('{}') && Object.keys(node.schema).length === 0) ||
        // Any JSON value (a JSON Patch value): resources.ts types it `unknown`.
        (node.schema['x-kubernetes-preserve-unknown-fields'] === true && !node.schema.properties);
      if (!node.schema.type && !typeless) untyped.push(node.path);
      if (node.isProperty && !node.schema.description) undocumented.push(node.path);
    }
    expect(untyped).toEqual([]);
    expect(undocumented).toEqual([]);
  });

  it.each(KINDS)(
    '%s: unknown fields are kept only where resources.ts has Record<string, unknown>',
    (kind) => {
      const preserving = walkSchema(rootSchema(kind))
        .filter((node) => node.schema['x-kubernetes-preserve-unknown-fields'] === true)
        .map((node) => node.path);
      // (and the JSON Patch values of spec.restore.patches, `unknown` in resources.ts: any JSON)
      expect(preserving.sort()).toEqual(
        kind === 'RestoreTest'
          ? ['spec.restore.patches[].operations[].value', 'spec.restore.patches[].when[].value', 'spec.sandbox.limitRange.limits[]']
          : [],
      );
    },
  );

  it.each(KINDS)('%s: list-map keys are required fields of their items', (kind) => {
    for (const node of walkSchema(rootSchema(kind))) {
      if (node.schema['x-kubernetes-list-type'] !== 'map') continue;
      const keys = node.schema['x-kubernetes-list-map-keys'] ?? [];
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys)
        expect({ path: node.path, required: node.schema.items?.required }).toEqual({
          path: node.path,
          required: expect.arrayContaining([key]),
        });
    }
  });

  it.each(KINDS)('%s: defaults are exactly those of decision 0003 and valid for their field', (kind) => {
    const defaults = Object.fromEntries(
      walkSchema(rootSchema(kind))
        .filter((node) => node.schema.default !== undefined)
        .map((node) => [node.path, node.schema.default]),
    );
    expect(defaults).toEqual(DEFAULTS[kind]);
    const check = newAjv();
    for (const node of walkSchema(rootSchema(kind)).filter((n) => n.schema.default !== undefined)) {
      const { default: value, ...withoutDefault } = node.schema;
      const validateDefault = check.compile(toJsonSchema(withoutDefault, node.path));
      expect({ path: node.path, valid: validateDefault(structuredClone(value)) }).toEqual({
        path: node.path,
        valid: true,
      });
    }
  });

  it.each(KINDS)('%s: CEL rules carry a message and their fieldPath exists', (kind) => {
    const rules = celRules(kind);
    expect(rules.length).toBeGreaterThan(0);
    for (const { field, rule } of rules) {
      expect({ rule: rule.rule, hasMessage: Boolean(rule.message ?? rule.messageExpression) }).toEqual({
        rule: rule.rule,
        hasMessage: true,
      });
      expect({ rule: rule.rule, fieldExists: schemaAt(rootSchema(kind), field) !== undefined }).toEqual({
        rule: rule.rule,
        fieldExists: true,
      });
    }
  });

  it('RestoreTest inline checks and HealthCheckPolicy checks share one schema', () => {
    // Descriptions of the list itself may differ; the list's rules and its items may not.
    const list = (kind: KindName, path: string): Schema => {
      const { description: _description, ...rest } = schemaAt(rootSchema(kind), path) ?? {};
      return rest;
    };
    expect(list('RestoreTest', 'spec.healthChecks.checks')).toEqual(list('HealthCheckPolicy', 'spec.checks'));
  });

  it('RestoreReport spec is immutable: reports are evidence', () => {
    const spec = schemaAt(rootSchema('RestoreReport'), 'spec');
    expect(spec?.['x-kubernetes-validations']?.map((r) => r.rule)).toContain('self == oldSelf');
    // No other transition rule anywhere: the other kinds are freely editable.
    for (const kind of KINDS) {
      const transitions = celRules(kind).filter(({ rule }) => rule.rule.includes('oldSelf'));
      expect(transitions.map((t) => t.field)).toEqual(kind === 'RestoreReport' ? ['spec'] : []);
    }
  });

  it('RestoreReport is bounded: every string and list has a maximum, the worst case stays small', () => {
    const unbounded = walkSchema(schemaAt(rootSchema('RestoreReport'), 'spec') as Schema)
      .filter(({ schema }) =>
        schema.type === 'string'
          ? schema.maxLength === undefined && schema.enum === undefined && schema.format !== 'date-time'
          : schema.type === 'array' && schema.maxItems === undefined,
      )
      .map((node) => node.path);
    expect(unbounded).toEqual([]);

    // Rough upper bound of the JSON size: names, quotes and punctuation included.
    const worstCase = (schema: Schema, nameLength: number): number => {
      const overhead = nameLength + 4;
      switch (schema.type) {
        case 'string':
          return (
            overhead + (schema.maxLength ?? Math.max(30, ...(schema.enum ?? []).map((v) => String(v).length)))
          );
        case 'array':
          return overhead + (schema.maxItems ?? 0) * (worstCase(schema.items as Schema, 0) + 1);
        case 'object':
          return (
            overhead +
            Object.entries(schema.properties ?? {}).reduce(
              (sum, [name, child]) => sum + worstCase(child, name.length),
              0,
            )
          );
        default:
          return overhead + 20;
      }
    };
    // `details` carries the packed fields (report-encoding.ts) in place of those fields, never
    // beside them, and the writer stores a report unpacked when its details would pass the limit:
    // the worst case is the larger of the two forms, not their sum.
    const spec = schemaAt(rootSchema('RestoreReport'), 'spec') as Schema;
    const { details, rtoMeasured, test, backupName, ...unpackedFields } = spec.properties ?? {};
    expect(rtoMeasured?.maxLength).toBeLessThanOrEqual(32);
    expect(test?.maxLength).toBeLessThanOrEqual(63);
    expect(backupName?.maxLength).toBeLessThanOrEqual(253);
    expect(details?.maxLength).toBeLessThanOrEqual(48 * 1024);
    const unpacked = worstCase({ ...spec, properties: unpackedFields }, 4);
    // 128 KiB before the volume table (issue 27: at most 20 volumes, ~24 KB at worst); etcd's
    // limit per object is 1.5 MiB.
    expect(unpacked).toBeLessThan(160 * 1024);
    // Realistic reports are a few KB.
    for (const sample of samples.filter((s) => s.object.kind === 'RestoreReport')) {
      expect({ file: sample.file, small: JSON.stringify(sample.object).length < 6 * 1024 }).toEqual({
        file: sample.file,
        small: true,
      });
    }
  });
});

describe('CRD schemas and resources.ts agree', () => {
  it.each(KINDS)('%s: the property paths of the typed exhaustive example equal the schema paths', (kind) => {
    expect(examplePaths(EXHAUSTIVE[kind], MAP_PATHS[kind])).toEqual(schemaPaths(kind));
  });

  it.each(KINDS)('%s: the exhaustive example has the right value types (structural validation)', (kind) => {
    expect(validate(kind, EXHAUSTIVE[kind]).violations).toEqual([]);
  });

  it.each(KINDS)('%s: schema enums equal the TypeScript unions', (kind) => {
    const enums = Object.fromEntries(
      walkSchema(rootSchema(kind))
        .filter((node) => node.schema.enum !== undefined)
        .map((node) => [node.path, [...(node.schema.enum as string[])].sort()]),
    );
    const want = Object.fromEntries(
      Object.entries(ENUMS[kind]).map(([path, values]) => [path, [...values].sort()]),
    );
    expect(enums).toEqual(want);
  });
});

describe('samples in crds/samples', () => {
  it('cover every kind, a minimal and a full RestoreTest, a passing and a failing report', () => {
    const files = samples.map((s) => s.file);
    expect(files).toEqual(
      expect.arrayContaining([
        'restoretest-minimal.yaml',
        'restoretest-full.yaml',
        'restoretest-policy-ref.yaml',
        'healthcheckpolicy.yaml',
        'restorereport-pass.yaml',
        'restorereport-fail.yaml',
      ]),
    );
  });

  it.each(samples.map((s) => [s.file, s] as const))('%s is valid', (_file, sample) => {
    expect(sample.object.apiVersion).toBe(API_VERSION);
    expect(isKindName(sample.object.kind)).toBe(true);
    expect(validate(sample.object.kind as KindName, sample.object).violations).toEqual([]);
  });

  it('the minimal RestoreTest gets the defaults of decision 0003', () => {
    const minimal = samples.find((s) => s.file === 'restoretest-minimal.yaml');
    const { defaulted } = validate('RestoreTest', minimal?.object);
    expect((defaulted as RestoreTest).spec).toEqual({
      provider: 'velero',
      backupSource: { backupName: 'latest', namespaces: [{ name: 'orders' }] },
      schedule: { cron: '0 2 * * *', timezone: 'UTC', suspend: false },
      sandbox: { namespacePrefix: 'rehearsal', networkIsolation: 'strict' },
      historyLimit: 90,
    });
  });

  it('the full RestoreTest sets every spec field and a check of every kind', () => {
    const full = samples.find((s) => s.file === 'restoretest-full.yaml')?.object as RestoreTest;
    const specPaths = (paths: string[]): string[] => paths.filter((p) => p.startsWith('spec.'));
    const withoutPolicy = (paths: string[]): string[] => paths.filter((p) => p !== 'spec.healthCheckPolicy');
    // Everything but healthCheckPolicy, which excludes inline checks.
    expect(examplePaths(full, MAP_PATHS.RestoreTest).filter((p) => p.startsWith('spec.'))).toEqual(
      withoutPolicy(specPaths(schemaPaths('RestoreTest'))),
    );
    expect(new Set(full.spec.healthChecks?.checks.map((c) => c.kind))).toEqual(new Set(CHECK_KINDS));
  });

  it('reports include a pass and a fail, and their scores add up', () => {
    const reports = samples
      .filter((s) => s.object.kind === 'RestoreReport')
      // The stored form (spec.details) read as every reader does.
      .map((s) => expandReport(s.object as RestoreReport));
    expect(new Set(reports.map((r) => r.spec.result))).toEqual(new Set(['pass', 'fail']));
    for (const report of reports) {
      expect(report.spec.levels.reduce((sum, level) => sum + level.points, 0)).toBe(report.spec.score);
      expect(report.spec.levels.reduce((sum, level) => sum + level.maxPoints, 0)).toBe(100);
    }
  });
});

describe('invalid RestoreTests in test/fixtures/invalid', () => {
  it('cover the agreed cases', () => {
    expect(invalidFixtures.map((f) => f.file)).toEqual(
      expect.arrayContaining([
        'bad-cron.yaml',
        'unknown-network-isolation.yaml',
        'empty-source-namespaces.yaml',
        'history-limit-zero.yaml',
        'unknown-field.yaml',
        'check-kind-without-block.yaml',
        'policy-and-inline-checks.yaml',
      ]),
    );
  });

  const structural = invalidFixtures.filter((f) => f.enforcedBy !== 'cel');
  it.each(structural.map((f) => [f.file, f] as const))(
    '%s fails at the field it names, only there',
    (_file, fixture) => {
      expect(fixture.object.kind).toBe('RestoreTest');
      const fields = validate('RestoreTest', fixture.object).violations.map((v) => v.field);
      expect(fields.length).toBeGreaterThan(0);
      expect([...new Set(fields)]).toEqual([fixture.field]);
    },
  );

  // CEL runs only in a real API server (integration tests). Offline: the object must be otherwise
  // valid, so the named rule is the only thing that can reject it, and such a rule must exist.
  const cel = invalidFixtures.filter((f) => f.enforcedBy === 'cel');
  it.each(cel.map((f) => [f.file, f] as const))(
    '%s is structurally valid and a CEL rule covers its field',
    (_file, fixture) => {
      expect(fixture.object.kind).toBe('RestoreTest');
      expect(validate('RestoreTest', fixture.object).violations).toEqual([]);
      expect(celRules('RestoreTest').map((r) => r.field)).toContain(indexFree(fixture.field));
    },
  );
});
