// Drafting RestoreTests from a namespace's workloads and its backup schedule (issue 32): the
// cadence rule as a table, the checks per workload shape, names within limits, and every draft
// valid against the RestoreTest CRD's schema (the structural part; the CEL rules are checked by
// the integration test against the real apiserver).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { draftCadence, FALLBACK_CRON } from '../../../server/domain/test-drafts/cadence.js';
import { databaseOf, draftChecks, imageName, MAX_CHECKS, placeholderQuery } from '../../../server/domain/test-drafts/draft-checks.js';
import { labelName, shortHash, uniqueName } from '../../../server/domain/test-drafts/draft-names.js';
import type { NamespaceFacts, WorkloadFacts, ServiceFacts } from '../../../server/domain/test-drafts/namespace-facts.js';
import {
  ANNOTATION_GENERATED_TODO,
  draftRestoreTest,
  draftTestName,
} from '../../../server/domain/test-drafts/test-draft.js';
import { validateCron } from '../../../server/domain/run/schedule.js';

const NOW = new Date('2026-11-28T10:00:00Z'); // a Saturday

const crd = parse(readFileSync(new URL('../../../crds/rehearsal.dev_restoretests.yaml', import.meta.url), 'utf8')) as {
  spec: { versions: { schema: { openAPIV3Schema: object } }[] };
};
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
const crdAccepts = ajv.compile(crd.spec.versions[0]!.schema.openAPIV3Schema);

function expectValidAgainstCrd(object: unknown): void {
  const ok = crdAccepts(object);
  expect(ok ? [] : crdAccepts.errors).toEqual([]);
}

function deployment(name: string, overrides: Partial<WorkloadFacts> = {}): WorkloadFacts {
  return {
    kind: 'Deployment',
    name,
    replicas: 2,
    selector: { app: name },
    podLabels: { app: name, tier: 'x' },
    containers: [{ name, image: 'example/app:1', ports: [], httpProbes: [], env: [], envFromSecrets: [] }],
    ...overrides,
  };
}

function service(name: string, selector: Record<string, string> | undefined, ports: ServiceFacts['ports']): ServiceFacts {
  return { name, ...(selector ? { selector } : {}), ports };
}

describe('draftCadence: the test runs after the backup, at most once a day', () => {
  it.each([
    ['daily at 02:00 → 03:00 daily', '0 2 * * *', '0 3 * * *'],
    ['daily at 23:30 → 00:30 the next day, still daily', '30 23 * * *', '30 0 * * *'],
    ['macro @daily', '@daily', '0 1 * * *'],
    ['hourly → once a day, an hour after the first backup of the day', '15 * * * *', '15 0 * * *'],
    ['every 6 hours → once a day', '0 */6 * * *', '0 1 * * *'],
    ['weekly on Sunday 23:00 → Monday 00:00', '0 23 * * 0', '0 0 * * 1'],
    ['weekdays at 01:00', '0 1 * * 1-5', '0 2 * * 1,2,3,4,5'],
    ['monthly on the 1st', '0 3 1 * *', '0 4 1 * *'],
    ['twice a month', '0 3 1,15 * *', '0 4 1,15 * *'],
  ])('%s', (_label, backup, expected) => {
    const cadence = draftCadence(backup, NOW);
    expect(cadence.cron).toBe(expected);
    expect(validateCron(cadence.cron).ok).toBe(true);
  });

  it('takes the delay it is given', () => {
    expect(draftCadence('0 2 * * *', NOW, 30 * 60).cron).toBe('30 2 * * *');
  });

  it('falls back to daily at 04:00 without a schedule, or with a cron it cannot read, and says why', () => {
    expect(draftCadence(undefined, NOW)).toEqual({ cron: FALLBACK_CRON, reason: expect.stringContaining('only one-off backups') });
    expect(draftCadence('not a cron', NOW)).toEqual({ cron: FALLBACK_CRON, reason: expect.stringContaining('cannot be read') });
  });

  it('says so when the backup days cannot be followed by one cron (day of month and weekday both set)', () => {
    const cadence = draftCadence('0 2 13 * 5', NOW); // the 13th or any Friday
    expect(cadence.cron).toBe('0 3 * * *');
    expect(cadence.reason).toContain('cannot be followed');
  });
});

describe('names', () => {
  it('keeps short names and cuts long ones to valid labels that stay apart', () => {
    expect(draftTestName('shop')).toBe('shop-restore');
    const long = 'a'.repeat(60);
    const a = draftTestName(`${long}-one`);
    const b = draftTestName(`${long}-two`);
    for (const name of [a, b]) {
      expect(name.length).toBeLessThanOrEqual(63);
      expect(name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
      expect(name.endsWith('-restore')).toBe(true);
    }
    expect(a).not.toBe(b);
    expect(labelName(['Web_Front', 8080, 'http'])).toBe('web-front-8080-http');
    expect(shortHash('x')).toHaveLength(6);
  });

  it('numbers repeats within the 63 characters', () => {
    const taken = new Set<string>();
    const name = 'b'.repeat(63);
    expect(uniqueName(name, taken)).toBe(name);
    const second = uniqueName(name, taken);
    expect(second).toHaveLength(63);
    expect(second.endsWith('-2')).toBe(true);
  });
});

describe('draftChecks', () => {
  it('drafts podsReady per workload, with minReady its replicas (1 for a DaemonSet); none for 0 replicas', () => {
    const drafted = draftChecks({
      namespace: 'ns',
      workloads: [
        deployment('web'),
        { ...deployment('agent'), kind: 'DaemonSet', replicas: undefined } as WorkloadFacts,
        deployment('idle', { replicas: 0 }),
      ],
      services: [],
    });
    expect(drafted.checks).toEqual([
      { name: 'agent-pods', kind: 'podsReady', podsReady: { selector: { app: 'agent' }, minReady: 1 } },
      { name: 'web-pods', kind: 'podsReady', podsReady: { selector: { app: 'web' }, minReady: 2 } },
    ]);
    expect(drafted.notes).toEqual([expect.stringContaining('idle has 0 replicas')]);
  });

  it('drafts httpGet from readiness and liveness probes through the Service that leads to the port, named or numbered, once per path', () => {
    const web = deployment('web', {
      containers: [
        {
          name: 'web',
          image: 'example/web:2',
          ports: [{ name: 'http', containerPort: 8080 }, { name: 'admin', containerPort: 9000 }],
          httpProbes: [
            { probe: 'readiness', path: '/ready', port: 'http' },
            { probe: 'liveness', path: '/ready', port: 8080 },
            { probe: 'liveness', path: '/live', port: 'admin', scheme: 'HTTPS' },
            { probe: 'readiness', path: '/x', port: 'missing' },
          ],
          env: [],
          envFromSecrets: [],
        },
      ],
    });
    const drafted = draftChecks({
      namespace: 'ns',
      workloads: [web],
      services: [
        service('web', { app: 'web' }, [{ name: 'http', port: 80, targetPort: 'http' }]),
        service('web-admin', { app: 'web' }, [{ port: 9443, targetPort: 9000 }]),
        service('other', { app: 'other' }, [{ port: 8080 }]),
      ],
    });
    expect(drafted.checks.filter((check) => check.kind === 'httpGet')).toEqual([
      { name: 'web-80-ready', kind: 'httpGet', httpGet: { service: 'web', port: 80, path: '/ready' } },
      { name: 'web-admin-9443-live', kind: 'httpGet', httpGet: { service: 'web-admin', port: 9443, path: '/live', scheme: 'https' } },
    ]);
    expect(drafted.notes).toContainEqual(expect.stringContaining('names port "missing"'));
  });

  it('notes a probe no Service reaches, and drafts no httpGet for it', () => {
    const drafted = draftChecks({
      namespace: 'ns',
      workloads: [
        deployment('api', {
          containers: [{ name: 'api', image: 'x', ports: [{ containerPort: 3000 }], httpProbes: [{ probe: 'readiness', path: '/h', port: 3000 }], env: [], envFromSecrets: [] }],
        }),
      ],
      services: [service('api', { app: 'api' }, [{ port: 80, targetPort: 8080 }])],
    });
    expect(drafted.checks.map((check) => check.kind)).toEqual(['podsReady', 'tcpSocket']);
    expect(drafted.notes).toContainEqual(expect.stringContaining('reached by no Service'));
  });

  it('drafts tcpSocket per TCP port of each Service with a selector, across several Services', () => {
    const drafted = draftChecks({
      namespace: 'ns',
      workloads: [],
      services: [
        service('db', { app: 'db' }, [{ port: 5432 }, { port: 53, protocol: 'UDP' }]),
        service('cache', { app: 'cache' }, [{ port: 6379 }, { port: 16379, name: 'bus' }]),
        service('external', undefined, [{ port: 443 }]),
      ],
    });
    expect(drafted.checks).toEqual([
      { name: 'cache-6379-tcp', kind: 'tcpSocket', tcpSocket: { service: 'cache', port: 6379 } },
      { name: 'cache-16379-tcp', kind: 'tcpSocket', tcpSocket: { service: 'cache', port: 16379 } },
      { name: 'db-5432-tcp', kind: 'tcpSocket', tcpSocket: { service: 'db', port: 5432 } },
    ]);
    expect(drafted.notes).toEqual([expect.stringContaining('Service external has no selector')]);
  });

  it.each([
    ['postgres:16', 'postgres'],
    ['docker.io/bitnami/postgresql:16.4.0@sha256:abc', 'postgresql'],
    ['registry.example/mysql', 'mysql'],
    ['mariadb:11', 'mariadb'],
  ])('knows the database image %s', (image, name) => {
    expect(imageName(image)).toBe(name);
    expect(databaseOf(image)).toBeDefined();
  });

  it('does not take an image merely named like a database for one', () => {
    expect(databaseOf('example/postgres-exporter:1')).toBeUndefined();
    expect(databaseOf('example/app:1')).toBeUndefined();
  });

  it('drafts a critical sqlQuery skeleton for a postgres StatefulSet, credentials from its env, that fails until filled', () => {
    const db: WorkloadFacts = {
      kind: 'StatefulSet',
      name: 'orders-db',
      replicas: 1,
      selector: { app: 'orders-db' },
      podLabels: { app: 'orders-db' },
      containers: [
        {
          name: 'postgres',
          image: 'postgres:16',
          ports: [{ name: 'pg', containerPort: 5432 }],
          httpProbes: [],
          env: [
            { name: 'POSTGRES_DB', value: 'orders' },
            { name: 'POSTGRES_USER', secretKeyRef: { name: 'orders-db-app', key: 'user' } },
            { name: 'POSTGRES_PASSWORD', secretKeyRef: { name: 'orders-db-app', key: 'password' } },
          ],
          envFromSecrets: [],
        },
      ],
    };
    const drafted = draftChecks({ namespace: 'ns', workloads: [db], services: [service('orders-db', { app: 'orders-db' }, [{ port: 5432, targetPort: 'pg' }])] });
    const sql = drafted.checks.find((check) => check.kind === 'sqlQuery');
    expect(sql).toEqual({
      name: 'orders-db-data',
      kind: 'sqlQuery',
      critical: true,
      timeout: '30s',
      sqlQuery: {
        engine: 'postgres',
        service: 'orders-db',
        port: 5432,
        database: 'orders',
        credentialsSecret: { name: 'orders-db-app', usernameKey: 'user', passwordKey: 'password' },
        query: placeholderQuery('postgres'),
        expectedMinRows: 1,
      },
    });
    expect(sql!.sqlQuery!.query).toMatch(/WHERE 1 = 0$/);
    expect(drafted.todo).toEqual([expect.stringMatching(/^check orders-db-data: write sqlQuery.query/)]);
  });

  it('marks what it could not find for a mariadb without credentials in its env', () => {
    const db = deployment('maria', {
      containers: [{ name: 'db', image: 'mariadb:11', ports: [{ containerPort: 3306 }], httpProbes: [], env: [{ name: 'MARIADB_ROOT_PASSWORD', value: 'x' }], envFromSecrets: [] }],
    });
    const drafted = draftChecks({ namespace: 'ns', workloads: [db], services: [service('maria', { app: 'maria' }, [{ port: 3306 }])] });
    const sql = drafted.checks.find((check) => check.kind === 'sqlQuery')!;
    expect(sql.sqlQuery).toMatchObject({ engine: 'mysql', service: 'maria', port: 3306, database: 'root', query: placeholderQuery('mysql') });
    expect(drafted.todo).toEqual([
      expect.stringContaining('write sqlQuery.query'),
      expect.stringContaining('name the restored Secret'),
      expect.stringContaining('name the database'),
    ]);
  });

  it('drafts no sqlQuery for a database no Service reaches, and says so', () => {
    const db = deployment('pg', {
      containers: [{ name: 'pg', image: 'postgres:16', ports: [{ containerPort: 5432 }], httpProbes: [], env: [], envFromSecrets: [] }],
    });
    const drafted = draftChecks({ namespace: 'ns', workloads: [db], services: [] });
    expect(drafted.checks.map((check) => check.kind)).toEqual(['podsReady']);
    expect(drafted.notes).toEqual([expect.stringContaining('no Service leads to its port 5432')]);
  });

  it(`keeps at most ${MAX_CHECKS} checks, podsReady first, and names what it left out`, () => {
    const workloads = Array.from({ length: 20 }, (_unused, index) => deployment(`w${index}`));
    const services = workloads.map((workload) => service(workload.name, { app: workload.name }, [{ port: 80 }]));
    const drafted = draftChecks({ namespace: 'ns', workloads, services });
    expect(drafted.checks).toHaveLength(MAX_CHECKS);
    expect(drafted.checks.filter((check) => check.kind === 'podsReady')).toHaveLength(20);
    expect(drafted.notes).toContainEqual(expect.stringContaining('40 checks drafted, more than the 32'));
  });
});

describe('draftRestoreTest', () => {
  const shop: NamespaceFacts = {
    namespace: 'shop',
    workloads: [
      deployment('web', {
        containers: [
          { name: 'web', image: 'example/shop-web:1.4', ports: [{ containerPort: 8080 }], httpProbes: [{ probe: 'readiness', path: '/healthz', port: 8080 }], env: [], envFromSecrets: [] },
        ],
      }),
    ],
    services: [service('web', { app: 'web' }, [{ port: 80, targetPort: 8080 }])],
  };

  it('drafts a test of the namespace from its schedule, valid against the CRD schema', () => {
    const draft = draftRestoreTest(
      shop,
      { provider: 'velero', backedUpBy: ['Schedule/nightly'], schedule: { name: 'nightly', cron: '0 1 * * *' } },
      { testNamespace: 'rehearsal-system', now: NOW },
    );
    expect(draft.test).toEqual({
      apiVersion: 'rehearsal.dev/v1alpha1',
      kind: 'RestoreTest',
      metadata: {
        name: 'shop-restore',
        namespace: 'rehearsal-system',
        annotations: { 'rehearsal.dev/generated-from': 'velero Schedule/nightly' },
      },
      spec: {
        provider: 'velero',
        backupSource: { backupName: 'latest', namespaces: [{ name: 'shop' }] },
        schedule: { cron: '0 2 * * *', timezone: 'UTC' },
        healthChecks: {
          checks: [
            { name: 'web-pods', kind: 'podsReady', podsReady: { selector: { app: 'web' }, minReady: 2 } },
            { name: 'web-80-ready', kind: 'httpGet', httpGet: { service: 'web', port: 80, path: '/healthz' } },
            { name: 'web-80-tcp', kind: 'tcpSocket', tcpSocket: { service: 'web', port: 80 } },
          ],
        },
      },
    });
    expect(draft.todo).toEqual([]);
    expect(draft.notes[0]).toContain('Schedule nightly (0 1 * * *)');
    expectValidAgainstCrd(draft.test);
    // The schema check can fail: a name one character too long is refused.
    expect(crdAccepts({ ...draft.test, metadata: { ...draft.test.metadata, name: 'x'.repeat(64) } })).toBe(false);
  });

  it.each([
    ['kasten', { kind: 'Policy', name: 'kasten-io/shop-daily', cron: '30 2 * * *' }, '30 3 * * *', 'kasten Policy/kasten-io/shop-daily'],
    ['trilio', { kind: 'BackupPlan', name: 'shop-plan', cron: '15 1 * * *', note: 'read as UTC' }, '15 2 * * *', 'trilio BackupPlan/shop-plan'],
    ['kasten', { kind: 'Policy', name: 'kasten-io/manual', cron: '', note: 'Kasten Policy kasten-io/manual runs on demand only (@onDemand)' }, FALLBACK_CRON, 'kasten Policy/kasten-io/manual'],
  ] as const)('drafts a %s test from its tool’s schedule (%j), valid against the CRD schema', (provider, schedule, cron, generatedFrom) => {
    const draft = draftRestoreTest(shop, { provider, backedUpBy: [], schedule }, { testNamespace: 'rehearsal-system', now: NOW });
    expect(draft.test.spec).toMatchObject({ provider, backupSource: { backupName: 'latest', namespaces: [{ name: 'shop' }] }, schedule: { cron } });
    expect(draft.test.metadata.annotations).toMatchObject({ 'rehearsal.dev/generated-from': generatedFrom });
    // The tool's note is said once: after the first note, or in it when there is no cadence.
    if ('note' in schedule) expect(draft.notes.filter((note) => note.includes(schedule.note)).length).toBe(1);
    expectValidAgainstCrd(draft.test);
  });

  it('leaves healthChecks out for an empty namespace (default checks) and marks TODOs in the annotation', () => {
    const empty = draftRestoreTest({ namespace: 'empty', workloads: [], services: [] }, { provider: 'velero', backedUpBy: ['Backup/once'] }, { testNamespace: 't', now: NOW });
    expect(empty.test.spec.healthChecks).toBeUndefined();
    expect(empty.test.spec.schedule.cron).toBe(FALLBACK_CRON);
    expect(empty.test.metadata.annotations).toEqual({ 'rehearsal.dev/generated-from': 'velero Backup/once' });
    expectValidAgainstCrd(empty.test);

    const withDb = draftRestoreTest(
      {
        namespace: 'n'.repeat(63),
        workloads: [deployment('p'.repeat(63), { containers: [{ name: 'pg', image: 'postgres:16', ports: [{ containerPort: 5432 }], httpProbes: [], env: [], envFromSecrets: [] }] })],
        services: [service('s'.repeat(63), { app: 'p'.repeat(63) }, [{ port: 5432 }])],
      },
      { provider: 'velero', backedUpBy: ['Schedule/s'], schedule: { name: 's', cron: '0 1 * * *' } },
      { testNamespace: 't', now: NOW },
    );
    expect(withDb.test.metadata.annotations![ANNOTATION_GENERATED_TODO]).toContain('write sqlQuery.query');
    for (const check of withDb.test.spec.healthChecks!.checks) expect(check.name.length).toBeLessThanOrEqual(63);
    expectValidAgainstCrd(withDb.test);
  });
});
