// The published schema of CreateTestInput (openapi/openapi.json) and the server's own validation
// (validateTestInput) must agree: a body the schema accepts is accepted by the server, and a body
// the schema rejects is rejected — except for the few rules JSON Schema cannot state, which the
// schema's description lists and which are named here one by one.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import addFormatsModule from 'ajv-formats';
import {
  CRON_SYNTAX,
  MAX_BACKUP_NAME_LENGTH,
  MAX_CRON_LENGTH,
  MAX_TIMEZONE_LENGTH,
  validateTestInput,
} from '../../../server/domain/test-spec/test-input.js';
import {
  HISTORY_LIMIT_RANGE,
  LOG_COLLECTION_DEFAULTS,
  LOG_COLLECTION_FIELDS,
  LOG_COLLECTION_LINES_RANGE,
  LOG_CONTAINERS,
  NETWORK_ISOLATION_MODES,
  PROVIDERS,
  TEST_INPUT_DEFAULTS,
  TEST_INPUT_FIELDS,
} from '../../../protocol/test-input.js';
import { MAX_NAMESPACE_PREFIX_LENGTH, MAX_SOURCE_NAMESPACES } from '../../../server/domain/run/sandbox-names.js';

interface PropertySchema {
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minimum?: number;
  maximum?: number;
  type?: string;
  enum?: unknown[];
  default?: unknown;
  $ref?: string;
}

interface CrdSchema extends PropertySchema {
  properties?: Record<string, CrdSchema>;
}

const document = JSON.parse(readFileSync(new URL('../../../openapi/openapi.json', import.meta.url), 'utf8')) as {
  components: { schemas: Record<string, { properties?: Record<string, PropertySchema>; enum?: unknown[] }> };
};
const schemas = document.components.schemas;
const properties = schemas.CreateTestInput!.properties!;
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(document, 'openapi');
const schemaAccepts = ajv.getSchema('openapi#/components/schemas/CreateTestInput')!;

const valid = { name: 'orders', provider: 'velero', sourceNamespaces: ['orders'], cron: '0 3 * * *' };

describe('CreateTestInput: schema and server state the same limits', () => {
  it('publishes the fields, enums, defaults and ranges the server applies and the plugin offers', () => {
    expect(Object.keys(properties).sort()).toEqual([...TEST_INPUT_FIELDS].sort());
    expect(schemas[properties.provider!.$ref!.split('/').pop()!]!.enum).toEqual([...PROVIDERS]);
    expect(properties.networkIsolation!.enum).toEqual([...NETWORK_ISOLATION_MODES, '', null]);
    expect(properties.historyLimit).toMatchObject({
      type: 'integer',
      minimum: HISTORY_LIMIT_RANGE.min,
      maximum: HISTORY_LIMIT_RANGE.max,
      default: TEST_INPUT_DEFAULTS.historyLimit,
    });
    expect(properties.sourceNamespaces).toMatchObject({ minItems: 1, maxItems: MAX_SOURCE_NAMESPACES, uniqueItems: true });
    expect(properties.namespacePrefix).toMatchObject({ maxLength: MAX_NAMESPACE_PREFIX_LENGTH, default: TEST_INPUT_DEFAULTS.namespacePrefix });
    expect(properties.backupName).toMatchObject({ maxLength: MAX_BACKUP_NAME_LENGTH, default: TEST_INPUT_DEFAULTS.backupName });
    expect(properties.timezone).toMatchObject({ maxLength: MAX_TIMEZONE_LENGTH, default: TEST_INPUT_DEFAULTS.timezone });
    expect(properties.ttl!.default).toBe(TEST_INPUT_DEFAULTS.ttl);
    expect(properties.alertOnExceed!.default).toBe(TEST_INPUT_DEFAULTS.alertOnExceed);
    expect(properties.cron).toMatchObject({ minLength: 1, maxLength: MAX_CRON_LENGTH, pattern: CRON_SYNTAX.source });
    const logCollection = schemas.LogCollectionInput!.properties as Record<string, PropertySchema & { enum?: unknown[] }>;
    expect(logCollection.lines).toMatchObject({
      type: 'integer',
      minimum: LOG_COLLECTION_LINES_RANGE.min,
      maximum: LOG_COLLECTION_LINES_RANGE.max,
      default: LOG_COLLECTION_DEFAULTS.lines,
    });
    expect(logCollection.containers!.enum).toEqual([...LOG_CONTAINERS, null]);
    expect(Object.keys(logCollection).sort()).toEqual([...LOG_COLLECTION_FIELDS].sort());
    // The two SLA targets are durations of one format (decision 0003).
    expect(properties.maxRPO!.pattern).toBe(properties.maxRTO!.pattern);
  });

  it('accepts no more than the RestoreTest CRD stores (the apiserver would answer 400 otherwise)', () => {
    const crd = parse(readFileSync(new URL('../../../crds/rehearsal.dev_restoretests.yaml', import.meta.url), 'utf8')) as {
      spec: { versions: { schema: { openAPIV3Schema: { properties: { spec: CrdSchema } } } }[] };
    };
    const spec = crd.spec.versions[0]!.schema.openAPIV3Schema.properties.spec;
    const at = (...path: string[]) => path.reduce((node, key) => node.properties![key]!, spec);
    const limits = (schema: PropertySchema | CrdSchema) => [schema.maxLength, schema.maxItems, schema.maximum];
    const within = (api: PropertySchema, stored: CrdSchema) =>
      limits(api).every((limit, i) => limits(stored)[i] === undefined || (limit !== undefined && limit <= limits(stored)[i]!));
    expect({
      backupName: within(properties.backupName!, at('backupSource', 'backupName')),
      sourceNamespaces: within(properties.sourceNamespaces!, at('backupSource', 'namespaces')),
      cron: within(properties.cron!, at('schedule', 'cron')),
      timezone: within(properties.timezone!, at('schedule', 'timezone')),
      namespacePrefix: within(properties.namespacePrefix!, at('sandbox', 'namespacePrefix')),
      healthCheckPolicy: within(properties.healthCheckPolicy!, at('healthCheckPolicy')),
      historyLimit: within(properties.historyLimit!, at('historyLimit')),
      logCollectionLines: within(
        (schemas.LogCollectionInput!.properties as Record<string, PropertySchema>).lines!,
        at('logCollection', 'lines'),
      ),
    }).toEqual({
      backupName: true, sourceNamespaces: true, cron: true, timezone: true, namespacePrefix: true,
      healthCheckPolicy: true, historyLimit: true, logCollectionLines: true,
    });
    // The SLA targets have no maxLength in the API: their pattern bounds them (9 digits per unit).
    const longest = '999999999h999999999m999999999s';
    for (const field of ['maxRTO', 'maxRPO'] as const) {
      const pattern = new RegExp(properties[field]!.pattern!);
      expect([field, pattern.test(longest), pattern.test(`9${longest}`)]).toEqual([field, true, false]);
      expect([field, longest.length <= at('sla', field).maxLength!]).toEqual([field, true]);
    }
  });

  it('accepts no more restore transforms than the CRD stores', () => {
    const crd = parse(readFileSync(new URL('../../../crds/rehearsal.dev_restoretests.yaml', import.meta.url), 'utf8')) as {
      spec: { versions: { schema: { openAPIV3Schema: { properties: { spec: CrdSchema } } } }[] };
    };
    const stored = crd.spec.versions[0]!.schema.openAPIV3Schema.properties.spec.properties!.restore!;
    const api = schemas.RestoreInput!.properties as Record<string, PropertySchema>;
    const patch = schemas.RestorePatchInput!.properties as Record<string, PropertySchema>;
    const storedPatch = (stored.properties!.patches as CrdSchema & { items: CrdSchema }).items;
    expect([api.exclude!.maxItems, api.patches!.maxItems, api.removeDefaults!.maxItems, patch.name!.maxLength]).toEqual([
      stored.properties!.exclude!.maxItems,
      stored.properties!.patches!.maxItems,
      stored.properties!.removeDefaults!.maxItems,
      storedPatch.properties!.name!.maxLength,
    ]);
    expect([patch.when!.maxItems, patch.operations!.maxItems]).toEqual([
      storedPatch.properties!.when!.maxItems,
      storedPatch.properties!.operations!.maxItems,
    ]);
  });

  it('describes cron in full (the macro list is not cut at a JSDoc tag)', () => {
    expect(properties.cron).toHaveProperty('description', expect.stringContaining('`@daily`, `@midnight`, `@hourly`'));
  });

  // [what, body changes] — the server and the schema must give the same verdict.
  const agreeing: [string, Record<string, unknown>][] = [
    ['the minimal body', {}],
    ['every optional field', {
      namespace: 'team-a', backupName: 'nightly-2026.03.01', timezone: 'Europe/Berlin', namespacePrefix: 'rt',
      ttl: '2h30m', networkIsolation: 'none', healthCheckPolicy: 'web', maxRTO: '15m', maxRPO: '24h', alertOnExceed: true, historyLimit: 1000,
    }],
    ['optional fields null', { namespace: null, backupName: null, ttl: null, historyLimit: null, alertOnExceed: null, networkIsolation: null }],
    ['optional fields empty', { namespace: '', backupName: '', timezone: '', ttl: '', maxRTO: '', maxRPO: '', networkIsolation: '' }],
    ['maxRPO null', { maxRPO: null }],
    ['a macro with blanks around', { cron: '  @daily ' }],
    ['cron with names, lists and steps', { cron: '*/15 1-5 1,15 jan-jun mon-fri' }],
    ['no name', { name: undefined }],
    ['an empty name', { name: '' }],
    ['a name with capitals', { name: 'Orders' }],
    ['a name of 64 characters', { name: 'a'.repeat(64) }],
    ['a name of 63 characters', { name: 'a'.repeat(63) }],
    ['an unknown provider', { provider: 'tape' }],
    ['provider null', { provider: null }],
    ['no source namespace', { sourceNamespaces: [] }],
    ['21 source namespaces', { sourceNamespaces: Array.from({ length: 21 }, (_, i) => `ns-${i}`) }],
    ['20 source namespaces', { sourceNamespaces: Array.from({ length: 20 }, (_, i) => `ns-${i}`) }],
    ['a repeated source namespace', { sourceNamespaces: ['a', 'a'] }],
    ['a source namespace that is not a label', { sourceNamespaces: ['A_B'] }],
    ['a number as source namespace', { sourceNamespaces: [7] }],
    ['an empty cron', { cron: '' }],
    ['a blank cron', { cron: '   ' }],
    ['a 6-field cron', { cron: '0 0 3 * * *' }],
    ['a cron with tabs', { cron: '0\t3\t*\t*\t*' }],
    ['an unknown macro', { cron: '@sometimes' }],
    ['a cron of 129 characters', { cron: `0 3 * * ${'1,'.repeat(61)}11` }],
    ['a lower-case time zone', { timezone: 'europe/berlin' }],
    ['an offset as time zone', { timezone: '+01:00' }],
    ['a time zone of 65 characters', { timezone: `A${'b'.repeat(64)}` }],
    ['a prefix of 21 characters', { namespacePrefix: 'p'.repeat(21) }],
    ['a prefix of 20 characters', { namespacePrefix: 'p'.repeat(20) }],
    ['a ttl of 0s', { ttl: '0s' }],
    ['a ttl in days', { ttl: '1d' }],
    ['a ttl with units out of order', { ttl: '5m1h' }],
    ['a fractional ttl', { ttl: '1.5h' }],
    ['a ttl of 10 digits', { ttl: '1234567890s' }],
    ['an unknown isolation mode', { networkIsolation: 'loose' }],
    ['a policy name that is not a label', { healthCheckPolicy: 'Web Policy' }],
    ['maxRTO 00m', { maxRTO: '00m' }],
    ['maxRPO 0s', { maxRPO: '0s' }],
    ['maxRPO in days', { maxRPO: '1d' }],
    ['maxRPO with units out of order', { maxRPO: '30m24h' }],
    ['maxRPO as seconds in a number', { maxRPO: 86400 }],
    ['maxRPO alone', { maxRPO: '1h30m' }],
    ['alertOnExceed as a string', { alertOnExceed: 'yes', maxRTO: '5m' }],
    ['historyLimit 0', { historyLimit: 0 }],
    ['historyLimit 1001', { historyLimit: 1001 }],
    ['historyLimit 1.5', { historyLimit: 1.5 }],
    ['historyLimit as a string', { historyLimit: '90' }],
    ['an unknown field', { maxRto: '15m' }],
    ['a backup name with capitals', { backupName: 'Nightly' }],
    ['a backup name of 254 characters', { backupName: 'b'.repeat(254) }],
    ['restore null', { restore: null }],
    ['logCollection null', { logCollection: null }],
    ['an empty logCollection', { logCollection: {} }],
    ['a full logCollection', { logCollection: { lines: 1000, containers: 'all', initContainers: false, previous: false, events: false } }],
    ['logCollection fields null', { logCollection: { lines: null, containers: null, initContainers: null, previous: null, events: null } }],
    ['logCollection lines 0', { logCollection: { lines: 0 } }],
    ['logCollection lines 1001', { logCollection: { lines: 1001 } }],
    ['logCollection lines 1.5', { logCollection: { lines: 1.5 } }],
    ['logCollection lines as a string', { logCollection: { lines: '100' } }],
    ['an unknown logCollection containers', { logCollection: { containers: 'some' } }],
    ['logCollection previous as a string', { logCollection: { previous: 'yes' } }],
    ['an unknown logCollection field', { logCollection: { tail: 5 } }],
    ['an empty restore', { restore: {} }],
    ['a full restore', { restore: {
      exclude: [{ group: 'example.com', version: 'v1beta1', kind: 'Widget', resource: 'widgets' }],
      patches: [{
        name: 'one', target: { group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments', name: 'web' },
        when: [{ path: '/spec/replicas', value: 3 }],
        operations: [{ op: 'replace', path: '/spec/replicas', value: 1 }, { op: 'copy', from: '/a', path: '/b' }, { op: 'remove', path: '/c' }],
      }],
      removeDefaults: ['exclude-gitops'], podSecurity: 'restricted',
    } }],
    ['a restore with an unknown field', { restore: { transforms: [] } }],
    ['an unknown default', { restore: { removeDefaults: ['suspend-everything'] } }],
    ['a default listed twice (a set: counted once)', { restore: { removeDefaults: ['hold-jobs', 'hold-jobs'] } }],
    ['an unknown Pod Security level', { restore: { podSecurity: 'strict' } }],
    ['33 exclusions', { restore: { exclude: Array.from({ length: 33 }, () => ({ version: 'v1', kind: 'ConfigMap', resource: 'configmaps' })) } }],
    ['an exclusion without resource', { restore: { exclude: [{ version: 'v1', kind: 'ConfigMap' }] } }],
    ['a lower-case kind', { restore: { exclude: [{ version: 'v1', kind: 'configMap', resource: 'configmaps' }] } }],
    ['a version that is not one', { restore: { exclude: [{ version: '1', kind: 'ConfigMap', resource: 'configmaps' }] } }],
    ['a patch without operations', { restore: { patches: [{ name: 'p', target: { version: 'v1', kind: 'Service', resource: 'services' }, operations: [] }] } }],
    ['an operation test (what `when` is for)', { restore: { patches: [{ name: 'p', target: { version: 'v1', kind: 'Service', resource: 'services' }, operations: [{ op: 'test', path: '/a', value: 1 }] }] } }],
    ['a path that is not a pointer', { restore: { patches: [{ name: 'p', target: { version: 'v1', kind: 'Service', resource: 'services' }, operations: [{ op: 'remove', path: 'spec' }] }] } }],
    ['a patch name of 51 characters', { restore: { patches: [{ name: 'p'.repeat(51), target: { version: 'v1', kind: 'Service', resource: 'services' }, operations: [{ op: 'remove', path: '/a' }] }] } }],
  ];

  it.each(agreeing)('%s: same verdict', (_what, changes) => {
    const body: Record<string, unknown> = { ...valid, ...changes };
    for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
    const server = validateTestInput(body);
    expect([schemaAccepts(body), server.ok ? 'accepted' : server.errors]).toEqual([
      server.ok,
      server.ok ? 'accepted' : expect.anything(),
    ]);
  });

  // Rules JSON Schema cannot express (listed in the schema's description): the schema accepts,
  // the server answers 400 naming the field.
  const semantic: [string, Record<string, unknown>, string][] = [
    ['a reversed range', { cron: '5-3 * * * *' }, 'cron'],
    ['a value out of range', { cron: '0 24 * * *' }, 'cron'],
    ['a day that never comes', { cron: '0 0 30 2 *' }, 'cron'],
    ['a zone the runtime does not know', { timezone: 'Mars/Olympus' }, 'timezone'],
    ['alertOnExceed without maxRTO', { alertOnExceed: true }, 'alertOnExceed'],
    ['alertOnExceed with only maxRPO', { alertOnExceed: true, maxRPO: '24h' }, 'alertOnExceed'],
    ['randomWithin without within', { backupSelect: { strategy: 'randomWithin' } }, 'backupSelect.within'],
    ['within with strategy latest', { backupSelect: { strategy: 'latest', within: '720h' } }, 'backupSelect.within'],
    ['a window shorter than 1h', { backupSelect: { strategy: 'randomWithin', within: '59m' } }, 'backupSelect.within'],
    ['a window longer than 366 days', { backupSelect: { strategy: 'randomWithin', within: '8785h' } }, 'backupSelect.within'],
    ['randomWithin with a named backup', { backupName: 'nightly', backupSelect: { strategy: 'randomWithin', within: '720h' } }, 'backupSelect.strategy'],
    ...(() => {
      const target = { version: 'v1', kind: 'ConfigMap', resource: 'configmaps' };
      const patch = (extra: Record<string, unknown>) => ({ name: 'p', target, operations: [{ op: 'remove', path: '/a' }], ...extra });
      return [
        ['two patches of one name', { restore: { patches: [patch({}), patch({})] } }, 'restore.patches[1].name'],
        ['copy without from', { restore: { patches: [patch({ operations: [{ op: 'copy', path: '/a' }] })] } }, 'restore.patches[0].operations[0].from'],
        ['from on a remove', { restore: { patches: [patch({ operations: [{ op: 'remove', path: '/a', from: '/b' }] })] } }, 'restore.patches[0].operations[0].from'],
        ['a null condition value', { restore: { patches: [patch({ when: [{ path: '/a', value: null }] })] } }, 'restore.patches[0].when[0].value'],
      ] as [string, Record<string, unknown>, string][];
    })(),
  ];

  it.each(semantic)('%s: only the server rejects it, naming the field', (_what, changes, field) => {
    const body = { ...valid, ...changes };
    expect(schemaAccepts(body)).toBe(true);
    const server = validateTestInput(body);
    expect(server.ok ? [] : server.errors.map((error) => error.field)).toEqual([field]);
  });
});
