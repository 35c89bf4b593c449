// The status writer's owner table against the CRD (every status field has exactly one owner, and
// the list two owners share merges per item), what one owner's apply carries, and the hand-over of
// fields a Rehearsal before server-side apply wrote. On the real apiserver: the managedFields test
// in test/integration/engine-status-owners.test.ts.
import { describe, expect, it } from '@jest/globals';
import type { CustomObjectsApi } from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { RestoreTest, RestoreTestStatus } from '../../../server/domain/resources/resources.js';
import { handOverLegacyStatus, type ManagedFieldsEntry } from '../../../server/kube/legacy-status-owners.js';
import {
  CONDITION_OWNERS,
  FIELD_OWNERS,
  ownedStatus,
  STATUS_MANAGERS,
  TestStatusWriter,
  type StatusOwner,
} from '../../../server/kube/test-status.js';

interface Schema {
  properties?: Record<string, Schema>;
  items?: Schema;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
}

const crd = parse(readFileSync('crds/rehearsal.dev_restoretests.yaml', 'utf8')) as {
  spec: { versions: { schema: { openAPIV3Schema: Schema } }[] };
};
const statusSchema = crd.spec.versions[0]!.schema.openAPIV3Schema.properties!.status!;
const OWNERS: StatusOwner[] = ['schedule', 'run', 'evidence', 'preflight'];
const T = '2026-03-01T02:00:00Z';

const fullStatus: RestoreTestStatus = {
  observedGeneration: 2,
  phase: 'Running',
  conditions: [
    { type: 'ScheduleValid', status: 'True', reason: 'Valid', message: 'ok', lastTransitionTime: T },
    { type: 'LastRunPassed', status: 'True', reason: 'Passed', message: 'ok', lastTransitionTime: T },
    { type: 'PreflightPassed', status: 'True', reason: 'Passed', message: 'backup b1: passed: 5 checks', lastTransitionTime: T },
  ],
  lastScore: 100,
  lastResult: 'pass',
  lastRunAt: T,
  nextRunAt: T,
  lastReport: 'shop-r0',
  lastScheduleTime: T,
  handledTrigger: 'req-1',
  currentRun: { id: 'r1', trigger: 'manual', scheduledAt: T, queuedAt: T, stage: 'Queued' },
  evidenceAnchor: { sequence: 1, digest: 'sha256:00', report: 'shop-r0' },
  preflight: { backupName: 'b1', checkedAt: T, result: 'passed', summary: 'passed: 5 checks' },
};

describe('the owner of each status field', () => {
  it('is exactly one owner for every field the CRD declares', () => {
    const declared = Object.keys(statusSchema.properties!).filter((field) => field !== 'conditions').sort();
    expect(Object.keys(FIELD_OWNERS).sort()).toEqual(declared);
    for (const owner of Object.values(FIELD_OWNERS)) expect(OWNERS).toContain(owner);
  });

  it('shares status.conditions per item: a map list keyed by type, each type with one owner', () => {
    const conditions = statusSchema.properties!.conditions!;
    expect(conditions['x-kubernetes-list-type']).toBe('map');
    expect(conditions['x-kubernetes-list-map-keys']).toEqual(['type']);
    expect(CONDITION_OWNERS).toEqual({ ScheduleValid: 'schedule', LastRunPassed: 'run', RunAllowed: 'run', PreflightPassed: 'preflight' });
  });

  it('keeps lists keyed where items are merged, and atomic ones inside a single owner', () => {
    // Lists inside currentRun belong to rehearsal-run as a whole; sandboxNamespaces is keyed so a
    // run's apply merges by source namespace rather than by position.
    const run = statusSchema.properties!.currentRun!.properties!;
    expect(run.sandboxNamespaces!['x-kubernetes-list-type']).toBe('map');
    expect(run.sandboxNamespaces!['x-kubernetes-list-map-keys']).toEqual(['source']);
    expect(FIELD_OWNERS.currentRun).toBe('run');
  });

  it('splits a status into the owners’ parts with nothing lost and nothing twice', () => {
    const parts = OWNERS.map((owner) => ownedStatus(owner, fullStatus));
    expect(parts[0]).toEqual({ observedGeneration: 2, conditions: [fullStatus.conditions![0]] });
    expect(parts[2]).toEqual({ evidenceAnchor: fullStatus.evidenceAnchor });
    expect(parts[3]).toEqual({ preflight: fullStatus.preflight, conditions: [fullStatus.conditions![2]] });
    const fields = parts.flatMap((part) => Object.keys(part).filter((key) => key !== 'conditions'));
    expect(fields.sort()).toEqual(Object.keys(fullStatus).filter((key) => key !== 'conditions').sort());
    expect(parts.flatMap((part) => part.conditions ?? [])).toEqual(fullStatus.conditions);
  });

  it('never carries a condition type it does not own (one a user added stays theirs)', () => {
    const status = { conditions: [...fullStatus.conditions!, { type: 'Custom', status: 'True' as const, reason: 'R', message: 'm', lastTransitionTime: T }] };
    expect(OWNERS.flatMap((owner) => ownedStatus(owner, status).conditions ?? []).map((condition) => condition.type)).toEqual(['ScheduleValid', 'LastRunPassed', 'PreflightPassed']);
  });
});

/** managedFields as a Rehearsal before server-side apply left them (seen on the real apiserver). */
const legacy: ManagedFieldsEntry[] = [
  { manager: 'rehearsal', operation: 'Update', apiVersion: 'rehearsal.dev/v1alpha1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:provider': {} } } },
  {
    manager: 'rehearsal',
    operation: 'Update',
    subresource: 'status',
    apiVersion: 'rehearsal.dev/v1alpha1',
    fieldsType: 'FieldsV1',
    fieldsV1: {
      'f:status': {
        '.': {},
        'f:conditions': { '.': {}, 'k:{"type":"ScheduleValid"}': { '.': {}, 'f:status': {}, 'f:type': {} }, 'k:{"type":"LastRunPassed"}': { '.': {}, 'f:type': {} } },
        'f:currentRun': { '.': {}, 'f:id': {}, 'f:stage': {} },
        'f:nextRunAt': {},
        'f:phase': {},
      },
    },
  },
  { manager: 'rehearsal-evidence', operation: 'Update', subresource: 'status', apiVersion: 'rehearsal.dev/v1alpha1', fieldsType: 'FieldsV1', fieldsV1: { 'f:status': { 'f:evidenceAnchor': { '.': {}, 'f:sequence': {} } } } },
  { manager: 'rehearsal-run', operation: 'Apply', subresource: 'status', apiVersion: 'rehearsal.dev/v1alpha1', fieldsType: 'FieldsV1', fieldsV1: { 'f:status': { 'f:currentRun': { 'f:startedAt': {} } } } },
];

const OWNERSHIP = {
  field: (name: string) => STATUS_MANAGERS[FIELD_OWNERS[name as keyof typeof FIELD_OWNERS]],
  condition: (type: string) => STATUS_MANAGERS[CONDITION_OWNERS[type]!],
};

describe('handOverLegacyStatus', () => {
  it('gives every field the old writers owned to its owner’s Apply entry, and drops their entries', () => {
    const handed = handOverLegacyStatus(legacy, new Date('2026-03-01T02:00:00.123Z'), OWNERSHIP)!;
    expect(handed.map((entry) => [entry.manager, entry.operation, entry.subresource])).toEqual([
      ['rehearsal', 'Update', undefined], // the spec entry (the API's creates and edits) stays
      ['rehearsal-run', 'Apply', 'status'],
      ['rehearsal-schedule', 'Apply', 'status'],
      ['rehearsal-evidence', 'Apply', 'status'],
    ]);
    expect(handed[1]!.fieldsV1).toEqual({
      'f:status': {
        'f:currentRun': { '.': {}, 'f:id': {}, 'f:stage': {}, 'f:startedAt': {} },
        'f:nextRunAt': {},
        'f:phase': {},
        'f:conditions': { 'k:{"type":"LastRunPassed"}': { '.': {}, 'f:type': {} } },
      },
    });
    expect(handed[2]).toEqual({
      manager: 'rehearsal-schedule',
      operation: 'Apply',
      apiVersion: 'rehearsal.dev/v1alpha1',
      time: '2026-03-01T02:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:status': { 'f:conditions': { 'k:{"type":"ScheduleValid"}': { '.': {}, 'f:status': {}, 'f:type': {} } } } },
      subresource: 'status',
    });
    expect(handed[3]!.fieldsV1).toEqual({ 'f:status': { 'f:evidenceAnchor': { '.': {}, 'f:sequence': {} } } });
    // The input is left as it was (it is the object the apiserver returned).
    expect(legacy[3]!.fieldsV1).toEqual({ 'f:status': { 'f:currentRun': { 'f:startedAt': {} } } });
  });

  it('is undefined when no old writer is left (every write after the first)', () => {
    expect(handOverLegacyStatus(legacy.slice(3), new Date(), OWNERSHIP)).toBeUndefined();
    expect(handOverLegacyStatus(undefined, new Date(), OWNERSHIP)).toBeUndefined();
  });
});

describe('TestStatusWriter.apply', () => {
  const test = { metadata: { name: 'shop', namespace: 'team-a', resourceVersion: '7' } } as RestoreTest;

  function fakeApi(managedFields: ManagedFieldsEntry[][]) {
    const requests: { kind: string; request: Record<string, unknown> }[] = [];
    let version = 7;
    const answer = () => ({ metadata: { name: 'shop', namespace: 'team-a', resourceVersion: String(++version), managedFields: managedFields.shift() ?? [] } });
    const api = {
      patchNamespacedCustomObjectStatus: async (request: Record<string, unknown>) => {
        requests.push({ kind: 'apply', request });
        return answer();
      },
      patchNamespacedCustomObject: async (request: Record<string, unknown>) => {
        requests.push({ kind: 'managedFields', request });
        return answer();
      },
    } as unknown as CustomObjectsApi;
    return { writer: new TestStatusWriter(api), requests };
  }

  it('applies only the owner’s fields, forced, under its field manager, guarded by the resourceVersion', async () => {
    const { writer, requests } = fakeApi([[]]);
    await writer.apply('schedule', test, fullStatus);
    expect(requests).toEqual([
      {
        kind: 'apply',
        request: expect.objectContaining({
          name: 'shop',
          namespace: 'team-a',
          fieldManager: 'rehearsal-schedule',
          force: true,
          body: {
            apiVersion: 'rehearsal.dev/v1alpha1',
            kind: 'RestoreTest',
            metadata: { name: 'shop', namespace: 'team-a', resourceVersion: '7' },
            status: { observedGeneration: 2, conditions: [fullStatus.conditions![0]] },
          },
        }),
      },
    ]);
  });

  it('hands over an old writer’s fields once, then applies again so that left-out fields go', async () => {
    const { writer, requests } = fakeApi([legacy, [], []]);
    const written = await writer.apply('run', test, { phase: 'Completed' });
    expect(requests.map((entry) => entry.kind)).toEqual(['apply', 'managedFields', 'apply']);
    const migration = requests[1]!.request as { body: { metadata: { resourceVersion: string; managedFields: ManagedFieldsEntry[] } } };
    expect(migration.body.metadata.resourceVersion).toBe('8');
    expect(migration.body.metadata.managedFields.some((entry) => entry.manager === 'rehearsal' && entry.subresource === 'status')).toBe(false);
    expect((requests[2]!.request as { body: { metadata: { resourceVersion: string } } }).body.metadata.resourceVersion).toBe('9');
    expect(written.metadata.resourceVersion).toBe('10');
  });
});
