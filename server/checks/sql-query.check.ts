// sqlQuery: a query against the restored database returns enough rows (expectedMinRows, default 1)
// and, when expectedValue is set, the first column of the first row equals it as a string.
//
// - Credentials come from a Secret restored into the sandbox (keys `username`/`password` unless
//   the check names others); values are base64-decoded from the Secret's data.
// - postgres via `pg`, mysql via `mysql2/promise`. Connect and statement timeouts are the check's
//   timeout; the connection is always closed, also on failure and on timeout.
// - Values are compared as the database renders them: PostgreSQL values are taken as raw text
//   (no type parsing, so `numeric`/`int8`/`date` compare exactly as psql prints them); MySQL is
//   asked for strings for dates, DECIMAL and big integers.
// - Messages never contain the password (every message is redacted against it as a last guard).
//   A rejected login, an unreachable server or a failing statement is `error`; rows or a value
//   that differ from the expectation are `fail`.

import pg from 'pg';
import { createConnection } from 'mysql2/promise';
import type { SqlQueryCheck } from '../domain/resources.js';
import type { CheckExecutor, CheckOutcome } from './check.js';
import {
  describeError,
  error,
  fail,
  isOutcome,
  pass,
  redact,
  requireBlock,
  timedOut,
  truncate,
} from './check.js';
import { formatHostPort, type ResolvedTarget } from './target-resolver.js';

export interface SqlConnectionParameters {
  host: string;
  port: number;
  database: string;
  user: string;
  password: string;
  timeoutMs: number;
  signal: AbortSignal;
}

/** The first rows of a result as arrays of column values (null for SQL NULL). */
export type SqlRows = (string | null)[][];

/** Which step failed, so messages can say "cannot connect" vs "query failed". */
export class SqlStepError extends Error {
  override readonly name = 'SqlStepError';
  constructor(
    readonly step: 'connect' | 'query',
    cause: unknown,
  ) {
    super(describeError(cause), { cause });
  }
}

const DEFAULT_PORT = { postgres: 5432, mysql: 3306 } as const;
const RAW_TEXT_TYPES = { getTypeParser: () => (value: string) => value } as unknown as pg.CustomTypesConfig;

function toText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value as number | bigint | boolean);
}

export async function queryPostgres(parameters: SqlConnectionParameters, sql: string): Promise<SqlRows> {
  const client = new pg.Client({
    host: parameters.host,
    port: parameters.port,
    database: parameters.database,
    user: parameters.user,
    password: parameters.password,
    connectionTimeoutMillis: parameters.timeoutMs,
    statement_timeout: parameters.timeoutMs,
    query_timeout: parameters.timeoutMs,
    application_name: 'rehearsal-health-check',
    types: RAW_TEXT_TYPES,
  });
  // An error after connecting (server shutdown) would otherwise be an unhandled 'error' event.
  client.on('error', () => undefined);
  const onAbort = (): void => void client.end().catch(() => undefined);
  parameters.signal.addEventListener('abort', onAbort, { once: true });
  try {
    try {
      await client.connect();
    } catch (thrown) {
      throw new SqlStepError('connect', thrown);
    }
    try {
      const result = await client.query<unknown[]>({ text: sql, rowMode: 'array' });
      return (result.rows ?? []).map((row) => row.map(toText));
    } catch (thrown) {
      throw new SqlStepError('query', thrown);
    }
  } finally {
    parameters.signal.removeEventListener('abort', onAbort);
    await client.end().catch(() => undefined);
  }
}

export async function queryMysql(parameters: SqlConnectionParameters, sql: string): Promise<SqlRows> {
  let connection: Awaited<ReturnType<typeof createConnection>>;
  try {
    connection = await createConnection({
      host: parameters.host,
      port: parameters.port,
      database: parameters.database,
      user: parameters.user,
      password: parameters.password,
      connectTimeout: parameters.timeoutMs,
      dateStrings: true,
      supportBigNumbers: true,
      bigNumberStrings: true,
      decimalNumbers: false,
      multipleStatements: false,
    });
  } catch (thrown) {
    throw new SqlStepError('connect', thrown);
  }
  connection.on('error', () => undefined);
  const onAbort = (): void => connection.destroy();
  parameters.signal.addEventListener('abort', onAbort, { once: true });
  try {
    try {
      const [rows] = await connection.query({ sql, timeout: parameters.timeoutMs, rowsAsArray: true });
      // A statement without a result set (UPDATE, ...) yields a ResultSetHeader, i.e. zero rows.
      if (!Array.isArray(rows)) return [];
      return (rows as unknown[]).map((row) => (Array.isArray(row) ? row.map(toText) : [toText(row)]));
    } catch (thrown) {
      throw new SqlStepError('query', thrown);
    }
  } finally {
    parameters.signal.removeEventListener('abort', onAbort);
    await connection.end().catch(() => connection.destroy());
  }
}

function explainDriverError(cause: unknown): string {
  const code = (cause as { code?: unknown } | undefined)?.code;
  const text = describeError(cause);
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused (ECONNREFUSED)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `host name not resolved (${code})`;
    case 'ETIMEDOUT':
      return 'connect timed out (ETIMEDOUT)';
    case '28P01':
    case '28000':
    case 'ER_ACCESS_DENIED_ERROR':
    case 'ER_DBACCESS_DENIED_ERROR':
      return `authentication rejected: ${text}`;
    default:
      // pg puts the SQLSTATE in `code` (e.g. 42601 syntax error, 3D000 unknown database);
      // mysql2 uses ER_* names. Both are kept in the message for searching.
      return typeof code === 'string' && !text.includes(code) ? `${text} (${code})` : text;
  }
}

function credentialsFrom(
  data: Record<string, string>,
  secretName: string,
  usernameKey: string,
  passwordKey: string,
): { user: string; password: string } | CheckOutcome {
  const keys = Object.keys(data).sort().join(', ') || 'none';
  const user = data[usernameKey];
  const password = data[passwordKey];
  if (user === undefined) return error(`Secret ${secretName} has no key "${usernameKey}" (keys: ${keys})`);
  if (password === undefined)
    return error(`Secret ${secretName} has no key "${passwordKey}" (keys: ${keys})`);
  return {
    user: Buffer.from(user, 'base64').toString('utf8'),
    password: Buffer.from(password, 'base64').toString('utf8'),
  };
}

function evaluateRows(rows: SqlRows, spec: SqlQueryCheck, minRows: number, where: string): CheckOutcome {
  const rowCount = `${rows.length} row${rows.length === 1 ? '' : 's'}`;
  if (rows.length < minRows)
    return fail(`${where}: query returned ${rowCount}, expected at least ${minRows}`);
  if (spec.expectedValue === undefined)
    return pass(`${where}: query returned ${rowCount} (at least ${minRows})`);
  const first = rows[0]?.[0];
  if (first === undefined)
    return fail(`${where}: query returned no column to compare with "${truncate(spec.expectedValue, 100)}"`);
  if (first === null)
    return fail(`${where}: first value is NULL, expected "${truncate(spec.expectedValue, 100)}"`);
  if (first !== spec.expectedValue) {
    return fail(
      `${where}: first value is "${truncate(first, 100)}", expected "${truncate(spec.expectedValue, 100)}"`,
    );
  }
  return pass(`${where}: query returned ${rowCount}; first value is "${truncate(first, 100)}" as expected`);
}

export const runSqlQueryCheck: CheckExecutor = async (check, context) => {
  const spec = requireBlock(check, 'sqlQuery');
  if (isOutcome(spec)) return spec;
  if (spec.engine !== 'postgres' && spec.engine !== 'mysql') {
    return error(`engine must be postgres or mysql, got "${String(spec.engine)}"`);
  }
  const minRows = spec.expectedMinRows ?? 1;
  if (!Number.isInteger(minRows) || minRows < 0)
    return error(`expectedMinRows must be a non-negative integer, got ${String(minRows)}`);
  if (!spec.query || spec.query.trim() === '') return error('query is empty');
  if (!spec.credentialsSecret?.name) return error('credentialsSecret.name is required');

  let target: ResolvedTarget;
  try {
    target = context.targets.resolve({
      namespace: context.namespace,
      service: spec.service,
      port: spec.port ?? DEFAULT_PORT[spec.engine],
    });
  } catch (thrown) {
    return error(`cannot resolve the probe target: ${describeError(thrown)}`);
  }

  const secretName = spec.credentialsSecret.name;
  let credentials: { user: string; password: string } | CheckOutcome;
  try {
    const secret = await context.reader.getSecret(context.namespace, secretName);
    credentials = credentialsFrom(
      secret.data,
      secretName,
      spec.credentialsSecret.usernameKey ?? 'username',
      spec.credentialsSecret.passwordKey ?? 'password',
    );
  } catch (thrown) {
    return error(`cannot read Secret ${context.namespace}/${secretName}: ${describeError(thrown)}`);
  }
  if (isOutcome(credentials)) return credentials;

  const { user, password } = credentials;
  const where = `${spec.engine} ${formatHostPort(target)}/${spec.database} as ${user}`;
  const parameters: SqlConnectionParameters = {
    ...target,
    database: spec.database,
    user,
    password,
    timeoutMs: context.timeoutMs,
    signal: context.signal,
  };
  let outcome: CheckOutcome;
  try {
    const rows =
      spec.engine === 'postgres'
        ? await queryPostgres(parameters, spec.query)
        : await queryMysql(parameters, spec.query);
    outcome = evaluateRows(rows, spec, minRows, where);
  } catch (thrown) {
    if (context.signal.aborted) {
      outcome = error(`${where}: ${timedOut(context, 'no result')}`);
    } else if (thrown instanceof SqlStepError) {
      outcome = error(
        thrown.step === 'connect'
          ? `cannot connect to ${where}: ${explainDriverError(thrown.cause)}`
          : `${where}: query failed: ${explainDriverError(thrown.cause)}`,
      );
    } else {
      outcome = error(`${where}: ${describeError(thrown)}`);
    }
  }
  return { status: outcome.status, message: truncate(redact(outcome.message, [password]), 500) };
};
