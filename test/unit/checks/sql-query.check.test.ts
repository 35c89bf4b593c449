// sqlQuery against a REAL PostgreSQL (a throw-away cluster from test/helpers/postgres.ts, on
// 127.0.0.1), with credentials from a fake Secret read and the StaticTargetResolver.

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { runChecks } from '../../../server/checks/check-runner.js';
import { runSqlQueryCheck } from '../../../server/checks/sql-query.check.js';
import { StaticTargetResolver } from '../../../server/checks/target-resolver.js';
import type { HealthCheck, SqlQueryCheck } from '../../../server/domain/resources/resources.js';
import { startPostgres, type PostgresServer } from '../../helpers/postgres.js';
import { measurePeakRss, MiB } from '../../helpers/peak-rss.js';
import { runSqlCheckInProcess } from '../../helpers/sql-check-process.js';
import { base64, checkContext, FakeSandboxReader } from './fake-sandbox-reader.js';

const SANDBOX = 'rehearsal-shop-abc12';
const password = `pw-${randomBytes(9).toString('hex')}`;
const wrongPassword = `wrong-${randomBytes(9).toString('hex')}`;

let postgres: PostgresServer;
let closedPort: number;
let reader: FakeSandboxReader;
let targets: StaticTargetResolver;
const messages: string[] = [];

beforeAll(async () => {
  postgres = await startPostgres({
    databases: [
      {
        name: 'shop',
        owner: { user: 'shop_app', password },
        sql: [
          'CREATE TABLE orders (id int PRIMARY KEY, status text NOT NULL, total numeric(10,2), note text)',
          "INSERT INTO orders VALUES (1, 'paid', 19.90, NULL), (2, 'shipped', 5.00, 'gift'), (3, 'paid', 100.00, NULL)",
          'CREATE TABLE audit (id int)',
        ],
      },
    ],
  });
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));

  reader = new FakeSandboxReader({
    secrets: [
      {
        namespace: SANDBOX,
        name: 'shop-db',
        data: { username: base64('shop_app'), password: base64(password) },
      },
      {
        namespace: SANDBOX,
        name: 'stale-db',
        data: { username: base64('shop_app'), password: base64(wrongPassword) },
      },
      {
        namespace: SANDBOX,
        name: 'custom-keys',
        data: { DB_USER: base64('shop_app'), DB_PASS: base64(password) },
      },
      { namespace: SANDBOX, name: 'no-password', data: { username: base64('shop_app') } },
      // The source namespace holds the same Secret name: a check must never read it.
      { namespace: 'shop', name: 'shop-db', data: { username: base64('nobody'), password: base64('nope') } },
    ],
  });
  targets = new StaticTargetResolver({
    'postgres:5432': `127.0.0.1:${postgres.port}`,
    'postgres-old:5432': `127.0.0.1:${closedPort}`,
  });
}, 90_000);

afterAll(async () => {
  await postgres?.stop();
});

function sqlCheck(sqlQuery: Partial<SqlQueryCheck>, extra: Partial<HealthCheck> = {}): HealthCheck {
  return {
    name: 'orders',
    kind: 'sqlQuery',
    sqlQuery: {
      engine: 'postgres',
      service: 'postgres',
      database: 'shop',
      credentialsSecret: { name: 'shop-db' },
      query: 'SELECT count(*) FROM orders',
      ...sqlQuery,
    },
    ...extra,
  };
}

async function run(sqlQuery: Partial<SqlQueryCheck>) {
  const outcome = await runSqlQueryCheck(
    sqlCheck(sqlQuery),
    checkContext({ reader, targets, namespace: SANDBOX, timeoutMs: 10_000 }),
  );
  messages.push(outcome.message);
  return outcome;
}

const where = () => `postgres 127.0.0.1:${postgres.port}/shop as shop_app`;

describe('sqlQuery check against a real PostgreSQL', () => {
  it('passes when the query returns at least one row (default expectedMinRows)', async () => {
    expect(await run({})).toEqual({
      status: 'pass',
      message: `${where()}: query returned 1 row (at least 1)`,
    });
  });

  it('passes on expectedMinRows and an expectedValue compared as text', async () => {
    expect(await run({ query: 'SELECT id FROM orders ORDER BY id', expectedMinRows: 3 })).toEqual({
      status: 'pass',
      message: `${where()}: query returned 3 rows (at least 3)`,
    });
    expect((await run({ expectedValue: '3' })).status).toBe('pass');
    // numeric(10,2) compares exactly as PostgreSQL prints it (no float parsing).
    const numeric = await run({ query: 'SELECT total FROM orders WHERE id = 1', expectedValue: '19.90' });
    expect(numeric).toEqual({
      status: 'pass',
      message: `${where()}: query returned 1 row; first value is the expected "19.90"`,
    });
  });

  it('freshness: the first value, as PostgreSQL renders a timestamptz (or an epoch), is the newest data\'s time', async () => {
    // PostgreSQL's own text for a timestamptz in the session's time zone, offset included.
    const at = await run({ query: "SELECT timestamptz '2026-11-28 14:05:03.123456+02'", freshness: true });
    expect(at).toEqual({
      status: 'pass',
      message: `${where()}: query returned 1 row (at least 1); newest data 2026-11-28T12:05:03.123Z`,
      newestData: '2026-11-28T12:05:03.123Z',
    });
    expect((await run({ query: "SELECT extract(epoch FROM timestamptz '2026-11-28 14:05:03Z')", freshness: true })).newestData).toBe(
      '2026-11-28T14:05:03.000Z',
    );
    // A value that is no time fails, naming only its size (it is restored data).
    expect(await run({ query: "SELECT 'not a time'", freshness: true })).toEqual({
      status: 'fail',
      message: `${where()}: query returned 1 row (at least 1), but its value (10 bytes) is not a timestamp or Unix time: no RPO measured`,
    });
    expect((await run({ query: 'SELECT NULL::timestamptz', freshness: true })).message).toMatch(/the freshness value is NULL: no RPO measured$/);
  });

  it('reads the Secret from the sandbox namespace, never from the source namespace', async () => {
    await run({});
    const secretReads = reader.calls.filter((call) => call.method === 'getSecret');
    expect(secretReads.length).toBeGreaterThan(0);
    expect(secretReads.every((call) => call.namespace === SANDBOX)).toBe(true);
  });

  it('uses the credential keys the check names', async () => {
    const outcome = await run({
      credentialsSecret: { name: 'custom-keys', usernameKey: 'DB_USER', passwordKey: 'DB_PASS' },
    });
    expect(outcome.status).toBe('pass');
  });

  it('fails on a wrong value, naming its size but never the restored value itself (issue 26)', async () => {
    expect(await run({ expectedValue: '4' })).toEqual({
      status: 'fail',
      message: `${where()}: first value (1 bytes) is not the expected "4"`,
    });
    const secretish = await run({ query: "SELECT 'alice@example.com secret-token-42'", expectedValue: 'x' });
    expect(secretish.status).toBe('fail');
    expect(secretish.message).not.toContain('alice');
    expect(secretish.message).not.toContain('secret-token-42');
    expect(await run({ query: 'SELECT note FROM orders WHERE id = 1', expectedValue: 'gift' })).toEqual({
      status: 'fail',
      message: `${where()}: first value is NULL, expected "gift"`,
    });
  });

  it('fails on zero rows or too few rows', async () => {
    expect(await run({ query: 'SELECT * FROM audit' })).toEqual({
      status: 'fail',
      message: `${where()}: query returned 0 rows, expected at least 1`,
    });
    expect(
      (await run({ query: "SELECT id FROM orders WHERE status = 'paid'", expectedMinRows: 3 })).message,
    ).toBe(`${where()}: query returned 2 rows, expected at least 3`);
  });

  it('is an error on bad credentials, and names neither password', async () => {
    const outcome = await run({ credentialsSecret: { name: 'stale-db' } });
    expect(outcome.status).toBe('error');
    expect(outcome.message).toBe(
      `cannot connect to ${where()}: authentication rejected: password authentication failed for user "shop_app" (28P01)`,
    );
  });

  it('is an error when the server is unreachable', async () => {
    const outcome = await run({ service: 'postgres-old' });
    expect(outcome).toEqual({
      status: 'error',
      message: `cannot connect to postgres 127.0.0.1:${closedPort}/shop as shop_app: connection refused (ECONNREFUSED)`,
    });
  });

  it('is an error on an SQL syntax error, an unknown table and an unknown database', async () => {
    expect(await run({ query: 'SELEKT 1' })).toEqual({
      status: 'error',
      message: `${where()}: query failed: syntax error at or near "SELEKT" (42601)`,
    });
    expect((await run({ query: 'SELECT * FROM missing_table' })).message).toBe(
      `${where()}: query failed: relation "missing_table" does not exist (42P01)`,
    );
    expect((await run({ database: 'nope' })).message).toBe(
      `cannot connect to postgres 127.0.0.1:${postgres.port}/nope as shop_app: database "nope" does not exist (3D000)`,
    );
  });

  it('never records a data error\'s message: it carries the restored value (issue 26)', async () => {
    const outcome = await run({ query: "SELECT CAST('alice@example.com' AS integer)" });
    expect(outcome).toEqual({
      status: 'error',
      message: `${where()}: query failed: error 22P02 (the database's message is not recorded: it can carry the restored data)`,
    });
  });

  it('is an error when the Secret or a key is missing', async () => {
    expect(await run({ credentialsSecret: { name: 'absent' } })).toEqual({
      status: 'error',
      message: `cannot read Secret ${SANDBOX}/absent: NotFound (HTTP 404): secrets "absent" not found`,
    });
    expect(await run({ credentialsSecret: { name: 'no-password' } })).toEqual({
      status: 'error',
      message: 'Secret no-password has no key "password" (keys: username)',
    });
  });

  it('stops a slow statement at the check timeout and closes every connection', async () => {
    const [result] = await runChecks([sqlCheck({ query: 'SELECT pg_sleep(20)' }, { timeout: '1s' })], {
      reader,
      targets,
      namespaces: [{ source: 'shop', sandbox: SANDBOX }],
    });
    messages.push(result?.message ?? '');
    expect(result?.status).toBe('error');
    expect(result?.message).toMatch(
      /canceling statement due to statement timeout|no result within the 1s timeout|timed out after 1s/,
    );
    expect(Number(result?.duration.replace('s', ''))).toBeLessThan(3);

    // Every connection the checks opened is closed (backends may take a moment to exit).
    let open = -1;
    for (let attempt = 0; attempt < 40 && open !== 0; attempt += 1) {
      const { rows } = await postgres.query(
        "SELECT count(*)::int AS open FROM pg_stat_activity WHERE application_name = 'rehearsal-health-check'",
      );
      open = (rows[0] as { open: number }).open;
      if (open !== 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(open).toBe(0);
  });

  it('fails a 2 GB result (2,000 values of 1 MB) clearly, reading 2 rows and < 300 MB RSS', async () => {
    const { result, baselineBytes, peakBytes } = await measurePeakRss(() =>
      run({ query: "SELECT repeat('x', 1000000) FROM generate_series(1, 2000)" }),
    );
    console.log(
      `SQL bomb (postgres): RSS ${(baselineBytes / MiB).toFixed(0)} MiB before, peak ${(peakBytes / MiB).toFixed(0)} MiB`,
    );
    expect(result).toEqual({
      status: 'fail',
      message: `${where()}: row 1 column 1 holds 1000000 bytes, more than the 65536 bytes a check accepts per value; select a smaller value (e.g. length(...) or count(*))`,
    });
    expect(peakBytes - baselineBytes).toBeLessThan(64 * MiB);
  });

  it('keeps a fresh server-like process under 300 MB RSS through the same 2 GB result', async () => {
    const result = await runSqlCheckInProcess({
      engine: 'postgres',
      port: postgres.port,
      database: 'shop',
      user: 'shop_app',
      password,
      query: "SELECT repeat('x', 1000000) FROM generate_series(1, 2000)",
    });
    console.log(
      `SQL bomb (postgres, own process): RSS ${(result.baselineRssBytes / MiB).toFixed(0)} MiB before, peak ${(result.peakRssBytes / MiB).toFixed(0)} MiB`,
    );
    expect(result.status).toBe('fail');
    expect(result.message).toContain('row 1 column 1 holds 1000000 bytes');
    expect(result.peakRssBytes).toBeLessThan(300 * MiB);
  }, 60_000);

  it('cuts a single value larger than the 4 MiB result budget off the wire', async () => {
    const { result, baselineBytes, peakBytes } = await measurePeakRss(() =>
      run({ query: "SELECT repeat('x', 20000000)" }),
    );
    expect(result).toEqual({
      status: 'fail',
      message: `${where()}: the result is larger than 4194304 bytes (the check reads at most 2 rows and 4194304 bytes); make the query return less, e.g. count(*)`,
    });
    expect(peakBytes - baselineBytes).toBeLessThan(64 * MiB);
  });

  it('reads only expectedMinRows + 1 rows of a long result, and says "more than"', async () => {
    const outcome = await run({ query: 'SELECT * FROM generate_series(1, 100000)', expectedMinRows: 5 });
    expect(outcome).toEqual({
      status: 'pass',
      message: `${where()}: query returned more than 5 rows (at least 5)`,
    });
  });

  it('never puts a password into any message', () => {
    expect(messages.length).toBeGreaterThan(10);
    for (const message of messages) {
      expect(message).not.toContain(password);
      expect(message).not.toContain(wrongPassword);
    }
  });
});

describe('sqlQuery check: mysql driver path', () => {
  it('is an error with a clear message when the MySQL server is unreachable', async () => {
    const mysqlTargets = new StaticTargetResolver({ 'mysql:3306': `127.0.0.1:${closedPort}` });
    const check = sqlCheck({ engine: 'mysql', service: 'mysql' });
    const outcome = await runSqlQueryCheck(
      check,
      checkContext({ reader, targets: mysqlTargets, namespace: SANDBOX }),
    );
    expect(outcome).toEqual({
      status: 'error',
      message: `cannot connect to mysql 127.0.0.1:${closedPort}/shop as shop_app: connection refused (ECONNREFUSED)`,
    });
    expect(outcome.message).not.toContain(password);
  });

  it('defaults the port per engine (3306 for mysql, 5432 for postgres)', async () => {
    const outcome = await runSqlQueryCheck(
      sqlCheck({ engine: 'mysql', service: 'postgres' }),
      checkContext({ reader, targets, namespace: SANDBOX }),
    );
    expect(outcome.message).toContain(
      'no static target configured for Service rehearsal-shop-abc12/postgres port 3306',
    );
  });

  it('rejects an unknown engine and an empty query', async () => {
    const context = checkContext({ reader, targets, namespace: SANDBOX });
    expect((await runSqlQueryCheck(sqlCheck({ engine: 'oracle' as 'mysql' }), context)).message).toBe(
      'engine must be postgres or mysql, got "oracle"',
    );
    expect((await runSqlQueryCheck(sqlCheck({ query: '  ' }), context)).message).toBe('query is empty');
  });
});
