// Rehearsal's Trilio objects against Trilio for Kubernetes' own CRDs (test/trilio/crds, generated
// from the vendor's files by test/trilio/crds-gen): every Restore the provider can create is
// stored by the apiserver exactly as written (no field pruned, no null dropped, nothing refused),
// a Restore read back with the apiserver's key order is adopted, every path the provider reads
// exists in the schema, and the simulator writes only statuses TVK's CRD allows. A field written
// at a path the vendor does not declare (spec.restoreNamespace, spec.skipIfAlreadyExists, as
// before) fails here rather than silently on a real cluster.
import { describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RestorePatch } from '../../../server/domain/resources/resources.js';
import {
  DEFAULT_TRANSFORM_IDS,
  resolveTransforms,
  type RestoreTransforms,
} from '../../../server/domain/run/restore-transforms.js';
import {
  sameTrilioRequest,
  trilioRestoreBody,
} from '../../../server/providers/trilio/trilio-restore-request.js';
import { trilioStateOf } from '../../../server/providers/trilio/trilio.provider.js';
import type { TrilioRestore } from '../../../server/providers/trilio/trilio-types.js';
import {
  asStored,
  crdSchema,
  declares,
  schemaProblems,
  type Schema,
} from '../../helpers/structural-schema.js';
import { DEFAULT_TRANSFORMS_ONLY, NO_TRANSFORMS } from '../../helpers/transforms.js';
import type { VolumeDataOutcome } from '../../providers/namespaced-tool-simulator.js';
import { withoutProse } from '../../trilio/crds-gen/structural-crd.js';
import { TrilioSimulator } from '../../trilio/simulator.js';
import type { SnapshotItem } from '../../velero/simulator.js';

const crds = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../trilio/crds');
const RESTORE = crdSchema(path.join(crds, 'restores.triliovault.trilio.io.yaml'));
const BACKUP = crdSchema(path.join(crds, 'backups.triliovault.trilio.io.yaml'));
const BACKUP_PLAN = crdSchema(path.join(crds, 'backupplans.triliovault.trilio.io.yaml'));
const POLICY = crdSchema(path.join(crds, 'policies.triliovault.trilio.io.yaml'));

const patch: RestorePatch = {
  name: 'one-replica',
  target: { group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments', name: 'web' },
  when: [
    { path: '/spec/replicas', value: 3 },
    { path: '/spec/paused', value: null },
  ],
  operations: [
    { op: 'replace', path: '/spec/replicas', value: 1 },
    { op: 'add', path: '/metadata/labels', value: { tier: 'sandbox', nested: { list: [1, null] } } },
    { op: 'add', path: '/spec/minReadySeconds', value: null },
    { op: 'remove', path: '/spec/paused' },
    { op: 'copy', from: '/metadata/name', path: '/metadata/labels/copied' },
    { op: 'move', from: '/metadata/labels/copied', path: '/metadata/labels/moved' },
  ],
};

const TRANSFORMS: [string, RestoreTransforms][] = [
  ['no transforms', NO_TRANSFORMS],
  ['the defaults', DEFAULT_TRANSFORMS_ONLY],
  [
    'the defaults, exclusions and patches',
    resolveTransforms({
      exclude: [
        { group: 'policy', version: 'v1', kind: 'PodDisruptionBudget', resource: 'poddisruptionbudgets' },
      ],
      patches: [patch],
    }),
  ],
  ['patches only', resolveTransforms({ patches: [patch], removeDefaults: [...DEFAULT_TRANSFORM_IDS] })],
];

function body(transforms: RestoreTransforms): TrilioRestore & { metadata: { name: string } } {
  return trilioRestoreBody({
    name: 'shop-smoke-abcde',
    labels: { 'rehearsal.dev/run': 'abcde', 'rehearsal.dev/test': 'shop-smoke' },
    backup: 'nightly',
    source: 'shop',
    sandbox: 'rehearsal-shop-smoke-abcde',
    transforms,
  });
}

/** A copy with every object's keys in reverse order (the apiserver returns them sorted, not as sent). */
function reordered<T>(value: T): T {
  if (Array.isArray(value)) return value.map(reordered) as T;
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([key, field]) => [key, reordered(field)]),
  ) as T;
}

describe('the structural-schema walker itself', () => {
  const schema: Schema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string' },
          size: { 'x-kubernetes-int-or-string': true },
          free: { 'x-kubernetes-preserve-unknown-fields': true },
          phase: { type: 'string', enum: ['A'] },
        },
      },
    },
  };

  it('names fields it would prune, nulls it would drop and values it would refuse', () => {
    expect(
      schemaProblems(
        { spec: { name: 'x', other: 1, size: null, phase: 'B', free: { anything: null } } },
        schema,
      ),
    ).toEqual([
      'spec.other: not in the schema (pruned)',
      'spec.size: null where the schema is not nullable (pruned)',
      'spec.phase: is "B", not one of A',
    ]);
    expect(schemaProblems({ spec: {} }, schema)).toEqual(['spec.name: required but missing']);
    expect(
      asStored(
        { metadata: { name: 'm' }, spec: { name: 'x', other: 1, size: null, free: { a: null } } },
        schema,
      ),
    ).toEqual({
      metadata: { name: 'm' },
      spec: { name: 'x', free: { a: null } },
    });
  });

  it('finds the paths Rehearsal wrote before against the vendor CRD: they would be pruned', () => {
    const before = body(DEFAULT_TRANSFORMS_ONLY) as TrilioRestore & { spec: Record<string, unknown> };
    before.spec = {
      ...before.spec,
      restoreNamespace: 'rehearsal-shop-smoke-abcde',
      skipIfAlreadyExists: true,
    };
    expect(schemaProblems(before, RESTORE)).toEqual([
      'spec.restoreNamespace: not in the schema (pruned)',
      'spec.skipIfAlreadyExists: not in the schema (pruned)',
    ]);
    const nullValue = body(DEFAULT_TRANSFORMS_ONLY);
    nullValue.spec!.transformComponents!.custom[0]!.jsonPatches[0]!.value = null;
    expect(schemaProblems(nullValue, RESTORE)).toEqual([
      expect.stringMatching(/^spec\.transformComponents\.custom\[0\]\.jsonPatches\[0\]\.value: null/),
    ]);
  });
});

describe('test/trilio/crds, generated from the vendor files', () => {
  it('the generator drops prose only: a field named "description" and every rule stay', () => {
    const vendor = {
      type: 'object',
      description: 'prose',
      properties: {
        description: { type: 'string', description: 'a field of that name', maxLength: 5 },
        size: { 'x-kubernetes-int-or-string': true, pattern: '^[0-9]+$', example: '1' },
      },
    };
    expect(withoutProse(vendor)).toEqual({
      type: 'object',
      properties: {
        description: { type: 'string', maxLength: 5 },
        size: { 'x-kubernetes-int-or-string': true, pattern: '^[0-9]+$' },
      },
    });
  });

  it('the committed CRDs keep the vendor’s rules: no unknown field kept in a Restore spec, the required fields', () => {
    expect(RESTORE.properties!.spec!['x-kubernetes-preserve-unknown-fields']).toBeUndefined();
    expect(RESTORE.properties!.spec!.required).toEqual(['source']);
    expect(BACKUP.properties!.spec!.required).toEqual(expect.arrayContaining(['backupPlan', 'type']));
  });
});

describe('the Restore Rehearsal creates, against the vendor Restore CRD', () => {
  it.each(TRANSFORMS)('with %s: nothing pruned, dropped or refused', (_, transforms) => {
    const restore = body(transforms);
    expect(schemaProblems(restore, RESTORE)).toEqual([]);
    expect(asStored(restore, RESTORE)).toEqual(restore);
  });

  it.each(TRANSFORMS)(
    'with %s: read back as the apiserver stores and orders it, it is adopted',
    (_, transforms) => {
      const wanted = body(transforms);
      expect(sameTrilioRequest(reordered(asStored(wanted, RESTORE)), wanted)).toBe(true);
    },
  );

  it('restores into the namespace it is created in, skipping what exists there, at the CRD paths', () => {
    const restore = body(NO_TRANSFORMS);
    expect(restore.metadata.namespace).toBe('rehearsal-shop-smoke-abcde');
    expect(restore.spec).toEqual({
      source: { type: 'Backup', backup: { name: 'nightly', namespace: 'shop' } },
      restoreFlags: { skipIfAlreadyExists: true },
    });
    expect(declares(RESTORE, 'spec.restoreFlags.skipIfAlreadyExists')).toBe(true);
    expect(declares(RESTORE, 'spec.restoreNamespace')).toBe(false);
  });

  it('is not adopted when the one found asks for another backup, source, namespace or transforms', () => {
    const wanted = body(DEFAULT_TRANSFORMS_ONLY);
    const other = (change: (restore: TrilioRestore) => void) => {
      const found = structuredClone(asStored(wanted, RESTORE));
      change(found);
      return sameTrilioRequest(found, wanted);
    };
    expect(other((found) => void (found.spec!.source!.backup!.name = 'weekly'))).toBe(false);
    expect(other((found) => void (found.spec!.source!.backup!.namespace = 'billing'))).toBe(false);
    expect(other((found) => void (found.metadata.namespace = 'rehearsal-other-abcde'))).toBe(false);
    expect(other((found) => void delete found.spec!.transformComponents)).toBe(false);
  });
});

describe('what the provider reads, against the vendor CRDs', () => {
  // The paths trilio.provider.ts and trilio-volume-restores.ts read (trilio-types.ts).
  const RESTORE_READS = [
    'spec.source.backup.name',
    'spec.source.backup.namespace',
    'spec.excludeResourceSelector',
    'spec.transformComponents',
    'status.status',
    'status.phase',
    'status.completionTimestamp',
    'status.condition[].status',
    'status.condition[].reason',
    ...['custom', 'helmCharts[]', 'operators[]'].flatMap((component) => [
      `status.restoreApplication.${component}.snapshot.dataSnapshots[].persistentVolumeClaimName`,
      `status.restoreApplication.${component}.snapshot.dataSnapshots[].conditions[].phase`,
      `status.restoreApplication.${component}.snapshot.dataSnapshots[].conditions[].status`,
      `status.restoreApplication.${component}.snapshot.dataSnapshots[].conditions[].reason`,
      `status.restoreApplication.${component}.snapshot.dataSnapshots[].conditions[].timestamp`,
      `status.restoreApplication.${component}.snapshot.dataSnapshots[].size`,
      `status.restoreApplication.${component}.status.failedResources[].objects`,
      `status.restoreApplication.${component}.status.skippedResources[].objects`,
      `status.restoreApplication.${component}.status.excludedResources[].objects`,
    ]),
    'status.restoreApplication.custom.snapshot.resources[].objects',
    'status.restoreApplication.helmCharts[].snapshot.resources[].objects',
    'status.restoreApplication.operators[].snapshot.customResources[].objects',
    'status.restoreApplication.operators[].snapshot.operatorResources[].objects',
    'status.restoreApplication.operators[].snapshot.helm.dataSnapshots[].persistentVolumeClaimName',
  ];
  const BACKUP_READS = ['status.status', 'status.completionTimestamp'];

  it.each(RESTORE_READS)('Restore %s is declared', (read) => expect(declares(RESTORE, read)).toBe(true));
  it.each(BACKUP_READS)('Backup %s is declared', (read) => expect(declares(BACKUP, read)).toBe(true));
  // Coverage and test drafts (issue 32, trilio-inventory.ts): the schedule a BackupPlan names and
  // the crons of that Policy; a path TVK does not declare would silently read as "no schedule".
  const BACKUP_PLAN_READS = [
    'spec.backupConfig.schedulePolicy.fullBackupPolicy.name',
    'spec.backupConfig.schedulePolicy.fullBackupPolicy.namespace',
    'spec.backupConfig.schedulePolicy.incrementalBackupPolicy.name',
    'spec.backupConfig.schedulePolicy.incrementalBackupPolicy.namespace',
    'spec.backupPlanFlags.pauseSchedule',
    'status.pauseSchedule',
  ];
  const POLICY_READS = ['spec.type', 'spec.scheduleConfig.schedule'];
  it.each(BACKUP_PLAN_READS)('BackupPlan %s is declared', (read) => expect(declares(BACKUP_PLAN, read)).toBe(true));
  it.each(POLICY_READS)('Policy %s is declared', (read) => expect(declares(POLICY, read)).toBe(true));
  it('a schedule Policy is of type Schedule, one of the types the CRD allows', () => {
    expect(POLICY.properties!.spec!.properties!.type!.enum).toContain('Schedule');
    expect(declares(BACKUP_PLAN, 'spec.backupConfig.schedule')).toBe(false);
  });

  it('reads every Restore status the CRD allows: Pending waits, InProgress runs, the rest end', () => {
    const statuses = RESTORE.properties!.status!.properties!.status!.enum as string[];
    expect(Object.fromEntries(statuses.map((status) => [status, trilioStateOf(status)]))).toEqual({
      Pending: 'pending',
      InProgress: 'running',
      Completed: 'succeeded',
      Failed: 'failed',
      Error: 'failed',
    });
  });

  it('restores only from a status the Backup CRD has: Available', () => {
    expect(BACKUP.properties!.status!.properties!.status!.enum).toContain('Available');
  });
});

describe('what the Trilio simulator writes, against the vendor CRDs', () => {
  const claim = (name: string, storage: string): SnapshotItem => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: 'shop' },
    spec: { resources: { requests: { storage } } },
  });
  const volumes = (failed: string[] = []): VolumeDataOutcome => ({
    claims: [claim('data-db-0', '1Gi'), claim('data-web-0', '512Mi')],
    failed: new Set(failed),
    startedAt: '2026-11-28T10:00:00Z',
  });
  const config: SnapshotItem = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'settings', namespace: 'shop' },
  };
  const event: SnapshotItem = {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: 'e1', namespace: 'shop' },
  };

  class OpenTrilio extends TrilioSimulator {
    statuses() {
      const all = [config, event, ...volumes().claims];
      return {
        running: this.runningStatus(),
        done: this.doneStatus({
          all,
          restored: [config, ...volumes().claims],
          excluded: [event],
          volumes: volumes(),
        }),
        volumeFailed: this.volumeDataFailedStatus(volumes(['data-db-0'])),
        failed: this.failedStatus('backup shop/nightly not found'),
      };
    }
    backup() {
      return this.backupBody('shop', 'nightly', '2026-11-28T09:00:00Z');
    }
  }
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'none', server: 'https://127.0.0.1:1' }],
    users: [{ name: 'none' }],
    contexts: [{ name: 'none', cluster: 'none', user: 'none' }],
    currentContext: 'none',
  });
  const simulator = new OpenTrilio(kubeConfig, { dataNamespace: 'unused' });

  it.each(Object.entries(simulator.statuses()))(
    'the %s Restore status is one TVK’s CRD keeps as written',
    (_, status) => {
      const restore = { status };
      expect(schemaProblems(restore, RESTORE)).toEqual([]);
    },
  );

  it('its Backup is one TVK’s CRD keeps as written', () => {
    expect(schemaProblems({ ...simulator.backup() }, BACKUP)).toEqual([]);
  });
});
