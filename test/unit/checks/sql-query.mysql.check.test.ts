// sqlQuery's mysql driver path (mysql2/promise) against a REAL MariaDB on 127.0.0.1, when the
// machine has MariaDB (apt-get install -y mariadb-server); without it: a warning and a skip, or a
// failure under CI=true (test/helpers/required-tool.ts).

import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { runChecks } from '../../../server/checks/check-runner.js';
import { runSqlQueryCheck } from '../../../server/checks/sql-query.check.js';
import { StaticTargetResolver } from '../../../server/checks/target-resolver.js';
import type { HealthCheck, SqlQueryCheck } from '../../../server/domain/resources/resources.js';
import { base64, checkContext, FakeSandboxReader } from './fake-sandbox-reader.js';
import { mariadbAvailable, startMariadb, type MariadbServer } from './mariadb-server.js';
import { measurePeakRss, MiB } from '../../helpers/peak-rss.js';
import { runSqlCheckInProcess } from '../../helpers/sql-check-process.js';
import { describeWithTool } from '../../helpers/required-tool.js';

const SANDBOX = 'rehearsal-shop-abc12';
const password = `pw-${randomBytes(9).toString('hex')}`;
const wrongPassword = `wrong-${randomBytes(9).toString('hex')}`;
const MARIADB = { name: 'MariaDB', available: mariadbAvailable(), install: 'apt-get install -y mariadb-server' };

describeWithTool(MARIADB, 'sqlQuery check against a real MariaDB (mysql engine)', () => {
  let server: MariadbServer;
  let reader: FakeSandboxReader;
  let targets: StaticTargetResolver;
  const messages: string[] = [];

  beforeAll(async () => {
    server = await startMariadb([
      {
        name: 'shop',
        owner: { user: 'shop_app', password },
        sql: [
          'CREATE TABLE orders (id INT PRIMARY KEY, status VARCHAR(20) NOT NULL, total DECIMAL(10,2), placed DATE, big BIGINT)',
          "INSERT INTO orders VALUES (1, 'paid', 19.90, '2024-02-29', 9007199254740993), (2, 'shipped', 5.00, '2024-03-01', 1)",
          'CREATE TABLE audit (id INT)',
        ],
      },
    ]);
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
      ],
    });
    targets = new StaticTargetResolver({ 'mysql:3306': `127.0.0.1:${server.port}` });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  }, 30_000);

  const where = () => `mysql 127.0.0.1:${server.port}/shop as shop_app`;

  async function run(sqlQuery: Partial<SqlQueryCheck>) {
    const check: HealthCheck = {
      name: 'orders',
      kind: 'sqlQuery',
      sqlQuery: {
        engine: 'mysql',
        service: 'mysql',
        database: 'shop',
        credentialsSecret: { name: 'shop-db' },
        query: 'SELECT count(*) FROM orders',
        ...sqlQuery,
      },
    };
    const outcome = await runSqlQueryCheck(
      check,
      checkContext({ reader, targets, namespace: SANDBOX, timeoutMs: 10_000 }),
    );
    messages.push(outcome.message);
    return outcome;
  }

  it('passes on rows and on values compared as text (DECIMAL, DATE, BIGINT as strings)', async () => {
    expect(await run({ expectedValue: '2' })).toEqual({
      status: 'pass',
      message: `${where()}: query returned 1 row; first value is the expected "2"`,
    });
    expect(
      (await run({ query: 'SELECT total FROM orders WHERE id = 1', expectedValue: '19.90' })).status,
    ).toBe('pass');
    expect(
      (await run({ query: 'SELECT placed FROM orders WHERE id = 1', expectedValue: '2024-02-29' })).status,
    ).toBe('pass');
    expect(
      (await run({ query: 'SELECT big FROM orders WHERE id = 1', expectedValue: '9007199254740993' })).status,
    ).toBe('pass');
  });

  it('fails on a wrong value and on zero rows', async () => {
    expect(await run({ expectedValue: '3' })).toEqual({
      status: 'fail',
      message: `${where()}: first value (1 bytes) is not the expected "3"`,
    });
    expect(await run({ query: 'SELECT * FROM audit' })).toEqual({
      status: 'fail',
      message: `${where()}: query returned 0 rows, expected at least 1`,
    });
  });

  it('is an error on bad credentials and on a syntax error, without the password', async () => {
    const denied = await run({ credentialsSecret: { name: 'stale-db' } });
    expect(denied.status).toBe('error');
    expect(denied.message).toMatch(
      new RegExp(
        `^cannot connect to ${where().replace(/\./g, '\\.')}: authentication rejected: Access denied for user 'shop_app'@'127\\.0\\.0\\.1' \\(using password: YES\\) \\(ER_ACCESS_DENIED_ERROR\\)$`,
      ),
    );
    const syntax = await run({ query: 'SELEKT 1' });
    expect(syntax.status).toBe('error');
    expect(syntax.message).toMatch(/query failed: You have an error in your SQL syntax.*\(ER_PARSE_ERROR\)$/);
  });

  it('stops a slow query at the check timeout', async () => {
    const [result] = await runChecks(
      [
        {
          name: 'slow',
          kind: 'sqlQuery',
          timeout: '1s',
          sqlQuery: {
            engine: 'mysql',
            service: 'mysql',
            database: 'shop',
            credentialsSecret: { name: 'shop-db' },
            query: 'SELECT SLEEP(20)',
          },
        },
      ],
      { reader, targets, namespaces: [{ source: 'shop', sandbox: SANDBOX }] },
    );
    messages.push(result?.message ?? '');
    expect(result?.status).toBe('error');
    expect(result?.message).toMatch(/timeout/i);
    expect(Number(result?.duration.replace('s', ''))).toBeLessThan(3);
  });

  it('fails a 2 GB result (2,000 values of 1 MB) clearly, reading 2 rows, with little memory', async () => {
    const { result, baselineBytes, peakBytes } = await measurePeakRss(() =>
      run({
        query:
          "WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 2000) SELECT REPEAT('x', 1000000) FROM s",
      }),
    );
    console.log(
      `SQL bomb (mysql): RSS ${(baselineBytes / MiB).toFixed(0)} MiB before, peak ${(peakBytes / MiB).toFixed(0)} MiB`,
    );
    expect(result).toEqual({
      status: 'fail',
      message: `${where()}: row 1 column 1 holds 1000000 bytes, more than the 65536 bytes a check accepts per value; select a smaller value (e.g. length(...) or count(*))`,
    });
    expect(peakBytes - baselineBytes).toBeLessThan(64 * MiB);
  });

  it('keeps a fresh server-like process under 300 MB RSS through the same 2 GB result', async () => {
    const result = await runSqlCheckInProcess({
      engine: 'mysql',
      port: server.port,
      database: 'shop',
      user: 'shop_app',
      password,
      query:
        "WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 2000) SELECT REPEAT('x', 1000000) FROM s",
    });
    console.log(
      `SQL bomb (mysql, own process): RSS ${(result.baselineRssBytes / MiB).toFixed(0)} MiB before, peak ${(result.peakRssBytes / MiB).toFixed(0)} MiB`,
    );
    expect(result.status).toBe('fail');
    expect(result.message).toContain('row 1 column 1 holds 1000000 bytes');
    expect(result.peakRssBytes).toBeLessThan(300 * MiB);
  }, 60_000);

  it('cuts a result past the 4 MiB budget off the wire, and reads only expectedMinRows + 1 rows', async () => {
    const tooLarge = await run({
      query:
        "WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 2000) SELECT REPEAT('x', 60000) FROM s",
      expectedMinRows: 1000,
    });
    expect(tooLarge).toEqual({
      status: 'fail',
      message: `${where()}: the result is larger than 4194304 bytes (the check reads at most 1001 rows and 4194304 bytes); make the query return less, e.g. count(*)`,
    });
    const long = await run({
      query:
        'WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 100000) SELECT n FROM s',
      expectedMinRows: 5,
    });
    expect(long).toEqual({
      status: 'pass',
      message: `${where()}: query returned more than 5 rows (at least 5)`,
    });
    // The connection cut after 6 rows leaves the server usable for the next check.
    expect((await run({ expectedValue: '2' })).status).toBe('pass');
  });

  it('never puts a password into any message', () => {
    expect(messages.length).toBeGreaterThan(5);
    for (const message of messages) {
      expect(message).not.toContain(password);
      expect(message).not.toContain(wrongPassword);
    }
  });
});
