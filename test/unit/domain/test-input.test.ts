import { describe, expect, it } from '@jest/globals';
import type { RestoreTestSpec } from '../../../server/domain/resources/resources.js';
import type { CreateTestInput } from '../../../protocol/test-input.js';
import {
  inputToSpec,
  specForUpdate,
  validateTestInput,
  type FieldError,
  type ValidTestInput,
} from '../../../server/domain/test-spec/test-input.js';

const minimal = { name: 'payments', provider: 'velero', sourceNamespaces: ['payments'], cron: '0 2 * * *' };

function valid(body: unknown, options?: { defaultNamespace?: string }): ValidTestInput {
  const result = validateTestInput(body, options);
  if (!result.ok) throw new Error(`unexpected errors: ${JSON.stringify(result.errors)}`);
  return result.value;
}

function errors(body: unknown): FieldError[] {
  const result = validateTestInput(body);
  if (result.ok) throw new Error('expected validation errors');
  return result.errors;
}

describe('validateTestInput: valid bodies', () => {
  it('applies every default of decision 0003 to a minimal body', () => {
    expect(valid(minimal)).toEqual({
      name: 'payments',
      namespace: 'rehearsal-system',
      provider: 'velero',
      backupName: 'latest',
      sourceNamespaces: ['payments'],
      cron: '0 2 * * *',
      timezone: 'UTC',
      namespacePrefix: 'rehearsal',
      ttl: '1h',
      networkIsolation: 'strict',
      alertOnExceed: false,
      historyLimit: 90,
    });
  });

  it('keeps every field of a full body', () => {
    const body: CreateTestInput = {
      name: 'shop',
      namespace: 'team-a',
      provider: 'kasten',
      backupName: 'nightly-20260301020000',
      sourceNamespaces: ['shop-web', 'shop-db'],
      cron: '@daily',
      timezone: 'Europe/Berlin',
      namespacePrefix: 'rt',
      ttl: '2h30m',
      networkIsolation: 'none',
      healthCheckPolicy: 'shop-checks',
      maxRTO: '15m',
      maxRPO: '24h',
      alertOnExceed: true,
      historyLimit: 1000,
    };
    expect(valid(body)).toEqual(body);
  });

  it('treats null and "" in optional fields as omitted', () => {
    const value = valid({
      ...minimal,
      namespace: null,
      backupName: '',
      timezone: '',
      namespacePrefix: null,
      ttl: '',
      networkIsolation: null,
      healthCheckPolicy: '',
      maxRTO: '',
      maxRPO: null,
      alertOnExceed: null,
      historyLimit: null,
    });
    expect(value).toEqual(valid(minimal));
  });

  it('uses the server namespace the API passes in', () => {
    expect(valid(minimal, { defaultNamespace: 'ops' }).namespace).toBe('ops');
  });

  it('trims the cron expression', () => {
    expect(valid({ ...minimal, cron: '  0 2 * * *  ' }).cron).toBe('0 2 * * *');
  });

  it.each([1, 1000, 90])('accepts historyLimit %i', (historyLimit) => {
    expect(valid({ ...minimal, historyLimit }).historyLimit).toBe(historyLimit);
  });

  it.each(['trilio', 'kasten', 'velero'])('accepts provider %s', (provider) => {
    expect(valid({ ...minimal, provider }).provider).toBe(provider);
  });
});

describe('validateTestInput: invalid bodies', () => {
  it.each([null, [], 'payments', 42, true])('rejects a body that is not an object: %j', (body) => {
    expect(errors(body)).toEqual([{ field: 'body', message: 'must be a JSON object' }]);
  });

  it('lists every missing required field', () => {
    expect(errors({})).toEqual([
      { field: 'name', message: 'is required' },
      { field: 'provider', message: 'is required' },
      { field: 'sourceNamespaces', message: 'is required' },
      { field: 'cron', message: 'is required unless onBackup is true' },
    ]);
  });

  const label = /RFC 1123 label/;
  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ['name not a string', { name: 5 }, 'name', /must be a string/],
    ['name empty', { name: '' }, 'name', /is required/],
    ['name upper case', { name: 'Payments' }, 'name', label],
    ['name too long', { name: 'a'.repeat(64) }, 'name', label],
    ['namespace with a dot', { namespace: 'team.a' }, 'namespace', label],
    ['unknown provider', { provider: 'restic' }, 'provider', /one of velero, kasten, trilio/],
    ['provider not a string', { provider: 1 }, 'provider', /must be a string/],
    ['backupName with spaces', { backupName: 'my backup' }, 'backupName', /backup name/],
    ['sourceNamespaces a string', { sourceNamespaces: 'payments' }, 'sourceNamespaces', /array/],
    ['sourceNamespaces empty', { sourceNamespaces: [] }, 'sourceNamespaces', /at least one/],
    [
      'sourceNamespaces too many',
      { sourceNamespaces: Array.from({ length: 21 }, (_, i) => `ns${i}`) },
      'sourceNamespaces',
      /at most 20/,
    ],
    ['a source not a string', { sourceNamespaces: ['a', 7] }, 'sourceNamespaces[1]', /must be a string/],
    ['a source not a label', { sourceNamespaces: ['a', 'B_b'] }, 'sourceNamespaces[1]', label],
    [
      'a duplicate source',
      { sourceNamespaces: ['a', 'b', 'a'] },
      'sourceNamespaces[2]',
      /duplicates sourceNamespaces\[0\]/,
    ],
    ['cron with seconds', { cron: '0 0 2 * * *' }, 'cron', /5 fields/],
    ['cron macro unknown', { cron: '@reboot' }, 'cron', /unknown cron macro/],
    ['cron out of range', { cron: '61 * * * *' }, 'cron', /invalid cron/],
    ['cron not a string', { cron: ['0', '2'] }, 'cron', /must be a string/],
    ['timezone lower case', { timezone: 'utc' }, 'timezone', /IANA/],
    ['timezone unknown', { timezone: 'Mars/Base' }, 'timezone', /IANA/],
    ['namespacePrefix not a label', { namespacePrefix: 'Rehearsal' }, 'namespacePrefix', label],
    ['namespacePrefix too long', { namespacePrefix: 'p'.repeat(21) }, 'namespacePrefix', /at most 20/],
    ['ttl in days', { ttl: '1d' }, 'ttl', /units h, m, s/],
    ['ttl zero', { ttl: '0s' }, 'ttl', /longer than 0s/],
    ['ttl a number', { ttl: 3600 }, 'ttl', /must be a string/],
    ['networkIsolation unknown', { networkIsolation: 'open' }, 'networkIsolation', /one of strict, none/],
    ['healthCheckPolicy not a label', { healthCheckPolicy: 'My Policy' }, 'healthCheckPolicy', label],
    ['maxRTO fractional', { maxRTO: '1.5h' }, 'maxRTO', /units h, m, s/],
    ['maxRPO in days', { maxRPO: '1d' }, 'maxRPO', /units h, m, s/],
    ['maxRPO zero', { maxRPO: '0h0m' }, 'maxRPO', /longer than 0s/],
    ['maxRPO a number', { maxRPO: 86400 }, 'maxRPO', /must be a string/],
    ['alertOnExceed with maxRPO only (it is about the RTO)', { alertOnExceed: true, maxRPO: '24h' }, 'alertOnExceed', /requires maxRTO/],
    ['an unknown field spelled like maxRPO', { maxRpo: '24h' }, 'maxRpo', /not a known field/],
    ['alertOnExceed a string', { alertOnExceed: 'true', maxRTO: '15m' }, 'alertOnExceed', /boolean/],
    ['alertOnExceed without maxRTO', { alertOnExceed: true }, 'alertOnExceed', /requires maxRTO/],
    ['historyLimit a string', { historyLimit: '90' }, 'historyLimit', /integer/],
    ['historyLimit fractional', { historyLimit: 1.5 }, 'historyLimit', /integer/],
    ['historyLimit zero', { historyLimit: 0 }, 'historyLimit', /between 1 and 1000/],
    ['historyLimit too large', { historyLimit: 1001 }, 'historyLimit', /between 1 and 1000/],
    ['an unknown field', { maxRto: '15m' }, 'maxRto', /not a known field/],
  ])('%s', (_title, patch, field, message) => {
    const found = errors({ ...minimal, ...patch });
    expect(found).toHaveLength(1);
    expect(found[0]!.field).toBe(field);
    expect(found[0]!.message).toMatch(message);
  });

  it('an invalid maxRTO is reported once, not also as a missing one for alertOnExceed', () => {
    expect(errors({ ...minimal, maxRTO: 'soon', alertOnExceed: true }).map((error) => error.field)).toEqual([
      'maxRTO',
    ]);
  });

  it('reports every offending field of a thoroughly wrong body, in field order', () => {
    const found = errors({
      name: 'Bad_Name',
      namespace: 'X',
      provider: 'tape',
      backupName: '??',
      sourceNamespaces: ['ok', 'NOT OK', 'ok'],
      cron: '* * *',
      timezone: 'Nowhere/Else',
      namespacePrefix: '-x',
      ttl: '1w',
      networkIsolation: 'partial',
      healthCheckPolicy: 'a.b',
      maxRTO: '-1m',
      maxRPO: '1w',
      alertOnExceed: 'yes',
      historyLimit: -1,
      extra: 1,
      another: 2,
    });
    expect(found.map((error) => error.field)).toEqual([
      'name',
      'namespace',
      'provider',
      'backupName',
      'sourceNamespaces[1]',
      'sourceNamespaces[2]',
      'cron',
      'timezone',
      'namespacePrefix',
      'ttl',
      'networkIsolation',
      'healthCheckPolicy',
      'maxRTO',
      'maxRPO',
      'alertOnExceed',
      'historyLimit',
      'extra',
      'another',
    ]);
  });
});

describe('inputToSpec', () => {
  it('writes the defaults out explicitly and leaves SLA and policy out when not given', () => {
    expect(inputToSpec(valid(minimal))).toEqual({
      provider: 'velero',
      backupSource: { backupName: 'latest', namespaces: [{ name: 'payments' }] },
      schedule: { cron: '0 2 * * *', timezone: 'UTC' },
      sandbox: { namespacePrefix: 'rehearsal', ttl: '1h', networkIsolation: 'strict' },
      historyLimit: 90,
    });
  });

  it('maps the SLA and the health check policy', () => {
    const spec = inputToSpec(
      valid({
        ...minimal,
        sourceNamespaces: ['a', 'b'],
        maxRTO: '15m',
        alertOnExceed: true,
        healthCheckPolicy: 'web',
      }),
    );
    expect(spec.sla).toEqual({ maxRTO: '15m', alertOnExceed: true });
    expect(spec.healthCheckPolicy).toBe('web');
    expect(spec.backupSource.namespaces).toEqual([{ name: 'a' }, { name: 'b' }]);
  });

  it('maps an RPO target beside the RTO target, or alone (alertOnExceed written out, it is about the RTO)', () => {
    expect(inputToSpec(valid({ ...minimal, maxRTO: '15m', maxRPO: '24h', alertOnExceed: true })).sla).toEqual({
      maxRTO: '15m',
      maxRPO: '24h',
      alertOnExceed: true,
    });
    expect(inputToSpec(valid({ ...minimal, maxRPO: '6h' })).sla).toEqual({ maxRPO: '6h', alertOnExceed: false });
  });

  it('keeps a macro as written', () => {
    expect(inputToSpec(valid({ ...minimal, cron: '@hourly' })).schedule.cron).toBe('@hourly');
  });
});

describe('specForUpdate (PUT semantics)', () => {
  const existing: RestoreTestSpec = {
    provider: 'velero',
    backupSource: { backupName: 'weekly', namespaces: [{ name: 'old' }], providerNamespace: 'backup-system' },
    schedule: { cron: '0 4 * * *', timezone: 'Europe/Berlin', suspend: true },
    sandbox: {
      namespacePrefix: 'old',
      ttl: '3h',
      networkIsolation: 'none',
      resourceQuota: { hard: { 'requests.cpu': '4' } },
      limitRange: { limits: [{ type: 'Container', default: { cpu: '500m' } }] },
    },
    sla: { maxRTO: '30m', alertOnExceed: true },
    healthCheckPolicy: 'old-policy',
    healthChecks: { checks: [{ name: 'db', kind: 'tcpSocket', tcpSocket: { service: 'db', port: 5432 } }] },
    historyLimit: 10,
    notifications: { channels: [{ name: 'ops', type: 'slack', urlSecretRef: { name: 'slack', key: 'url' } }] },
  };

  it('replaces what the input can express (omitted = default) and keeps what it cannot', () => {
    expect(specForUpdate(existing, valid(minimal))).toEqual({
      provider: 'velero',
      backupSource: {
        backupName: 'latest',
        namespaces: [{ name: 'payments' }],
        providerNamespace: 'backup-system',
      },
      schedule: { cron: '0 2 * * *', timezone: 'UTC', suspend: true },
      sandbox: {
        namespacePrefix: 'rehearsal',
        ttl: '1h',
        networkIsolation: 'strict',
        resourceQuota: { hard: { 'requests.cpu': '4' } },
        limitRange: { limits: [{ type: 'Container', default: { cpu: '500m' } }] },
      },
      healthChecks: { checks: [{ name: 'db', kind: 'tcpSocket', tcpSocket: { service: 'db', port: 5432 } }] },
      historyLimit: 90,
      notifications: { channels: [{ name: 'ops', type: 'slack', urlSecretRef: { name: 'slack', key: 'url' } }] },
    });
  });

  it('adds nothing that the existing spec did not have', () => {
    const bare = inputToSpec(valid(minimal));
    expect(specForUpdate(bare, valid({ ...minimal, maxRTO: '10m' }))).toEqual({
      ...bare,
      sla: { maxRTO: '10m', alertOnExceed: false },
    });
  });

  it('replaces the RPO target as it replaces the RTO target: an omitted maxRPO removes it (decision 0003)', () => {
    const withRpo: RestoreTestSpec = { ...existing, sla: { maxRTO: '30m', maxRPO: '24h', alertOnExceed: true } };
    expect(specForUpdate(withRpo, valid({ ...minimal, maxRTO: '10m', maxRPO: '12h' })).sla).toEqual({
      maxRTO: '10m',
      maxRPO: '12h',
      alertOnExceed: false,
    });
    expect(specForUpdate(withRpo, valid({ ...minimal, maxRTO: '10m' })).sla).toEqual({ maxRTO: '10m', alertOnExceed: false });
    expect(specForUpdate(withRpo, valid({ ...minimal, maxRPO: '24h' })).sla).toEqual({ maxRPO: '24h', alertOnExceed: false });
    expect(specForUpdate(withRpo, valid(minimal)).sla).toBeUndefined();
  });

  it('does not modify the existing spec', () => {
    const copy = structuredClone(existing);
    specForUpdate(existing, valid(minimal));
    expect(existing).toEqual(copy);
  });
});

describe('restore (spec.restore, issue 28)', () => {
  const restore = {
    exclude: [{ group: 'example.com', version: 'v1', kind: 'Widget', resource: 'widgets' }],
    patches: [
      {
        name: 'one',
        target: { group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments' },
        operations: [{ op: 'replace', path: '/spec/replicas', value: 1 }],
      },
    ],
    removeDefaults: ['exclude-gitops'],
    podSecurity: 'restricted',
  };

  it('maps into spec.restore as given; an empty one adds nothing; a repeated default counts once', () => {
    expect(inputToSpec(valid({ ...minimal, restore })).restore).toEqual(restore);
    expect(inputToSpec(valid({ ...minimal, restore: {} })).restore).toBeUndefined();
    expect(inputToSpec(valid({ ...minimal, restore: { removeDefaults: ['hold-jobs', 'hold-jobs'] } })).restore).toEqual({ removeDefaults: ['hold-jobs'] });
  });

  it('is replaced by PUT like every field the input expresses (absent = the defaults only)', () => {
    const existing = inputToSpec(valid({ ...minimal, restore }));
    expect(specForUpdate(existing, valid(minimal)).restore).toBeUndefined();
    expect(specForUpdate(existing, valid({ ...minimal, restore: { podSecurity: 'baseline' } })).restore).toEqual({ podSecurity: 'baseline' });
  });

  it('names every offending field with its path', () => {
    expect(
      errors({
        ...minimal,
        restore: {
          exclude: [{ version: 'v1', kind: 'Widget' }],
          patches: [{ name: 'P', target: { version: 'v1', kind: 'Service', resource: 'services' }, operations: [{ op: 'move', path: '/a' }] }],
          podSecurity: 'loose',
        },
      }).map((error) => error.field),
    ).toEqual([
      'restore.exclude[0].resource',
      'restore.patches[0].name',
      'restore.patches[0].operations[0].from',
      'restore.podSecurity',
    ]);
  });
});

describe('backupSelect (spec.backupSource.select, issue 32)', () => {
  it('maps randomWithin into spec.backupSource.select; absent or null writes nothing (latest)', () => {
    const select = { strategy: 'randomWithin', within: '720h' };
    expect(inputToSpec(valid({ ...minimal, backupSelect: select })).backupSource).toEqual({
      backupName: 'latest',
      namespaces: [{ name: 'payments' }],
      select,
    });
    expect(inputToSpec(valid({ ...minimal, backupSelect: null })).backupSource.select).toBeUndefined();
    expect(inputToSpec(valid(minimal)).backupSource.select).toBeUndefined();
    expect(inputToSpec(valid({ ...minimal, backupSelect: { strategy: 'latest' } })).backupSource.select).toEqual({ strategy: 'latest' });
  });

  it('is replaced by PUT like every field the input expresses (omitted = latest)', () => {
    const existing = inputToSpec(valid({ ...minimal, backupSelect: { strategy: 'randomWithin', within: '720h' } }));
    expect(specForUpdate(existing, valid(minimal)).backupSource.select).toBeUndefined();
  });

  it.each([
    ['a window in days', { strategy: 'randomWithin', within: '30d' }, 'backupSelect.within'],
    ['a window shorter than 1h', { strategy: 'randomWithin', within: '59m59s' }, 'backupSelect.within'],
    ['a window longer than 8784h', { strategy: 'randomWithin', within: '8784h1s' }, 'backupSelect.within'],
    ['randomWithin without a window', { strategy: 'randomWithin' }, 'backupSelect.within'],
    ['a window with latest', { strategy: 'latest', within: '1h' }, 'backupSelect.within'],
    ['an unknown strategy', { strategy: 'oldest' }, 'backupSelect.strategy'],
    ['an unknown field', { strategy: 'latest', everyNthRun: 3 }, 'backupSelect.everyNthRun'],
    ['not an object', 'randomWithin', 'backupSelect'],
  ])('refuses %s, naming the field', (_what, backupSelect, field) => {
    expect(errors({ ...minimal, backupSelect }).map((error) => error.field)).toEqual([field]);
  });

  it('accepts the window edges, 1h and 8784h', () => {
    expect(valid({ ...minimal, backupSelect: { strategy: 'randomWithin', within: '1h' } }).backupSelect).toEqual({ strategy: 'randomWithin', within: '1h' });
    expect(valid({ ...minimal, backupSelect: { strategy: 'randomWithin', within: '8784h' } }).backupSelect?.within).toBe('8784h');
  });

  it('refuses randomWithin with a named backup (nothing to draw from)', () => {
    expect(errors({ ...minimal, backupName: 'nightly', backupSelect: { strategy: 'randomWithin', within: '720h' } })).toEqual([
      { field: 'backupSelect.strategy', message: 'randomWithin needs backupName latest' },
    ]);
  });
});

describe('validateTestInput: onBackup and everyNthBackup (issue 32)', () => {
  const { cron: _cron, ...withoutCron } = minimal;

  it('accepts onBackup without cron, and writes spec.schedule.onBackup (everyNth 1) and no cron', () => {
    const value = valid({ ...withoutCron, onBackup: true });
    expect(value.cron).toBeUndefined();
    expect(value.onBackup).toEqual({ everyNth: 1 });
    expect(inputToSpec(value).schedule).toEqual({ timezone: 'UTC', onBackup: { everyNth: 1 } });
  });

  it('accepts onBackup beside cron, with everyNthBackup', () => {
    expect(inputToSpec(valid({ ...minimal, onBackup: true, everyNthBackup: 3 })).schedule).toEqual({
      cron: '0 2 * * *',
      timezone: 'UTC',
      onBackup: { everyNth: 3 },
    });
  });

  it('treats onBackup false or null as off: the cron alone, still required', () => {
    expect(inputToSpec(valid({ ...minimal, onBackup: false })).schedule).toEqual({ cron: '0 2 * * *', timezone: 'UTC' });
    expect(errors({ ...withoutCron, onBackup: null })).toEqual([{ field: 'cron', message: 'is required unless onBackup is true' }]);
  });

  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ['neither cron nor onBackup', { ...withoutCron }, 'cron', /required unless onBackup/],
    ['an empty cron with onBackup', { ...withoutCron, cron: '', onBackup: true }, 'cron', /must not be empty/],
    ['everyNthBackup 0', { ...withoutCron, onBackup: true, everyNthBackup: 0 }, 'everyNthBackup', /between 1 and 1000/],
    ['everyNthBackup 1001', { ...withoutCron, onBackup: true, everyNthBackup: 1001 }, 'everyNthBackup', /between 1 and 1000/],
    ['everyNthBackup 2.5', { ...withoutCron, onBackup: true, everyNthBackup: 2.5 }, 'everyNthBackup', /integer/],
    ['everyNthBackup without onBackup', { ...minimal, everyNthBackup: 2 }, 'everyNthBackup', /needs onBackup true/],
    ['onBackup not a boolean', { ...minimal, onBackup: 'yes' }, 'onBackup', /boolean/],
    ['onBackup with a named backup', { ...withoutCron, onBackup: true, backupName: 'daily-1' }, 'onBackup', /backupName latest/],
  ])('refuses %s, naming the field', (_case, body, field, message) => {
    const found = errors(body);
    expect(found).toEqual([{ field, message: expect.stringMatching(message) }]);
  });
});
