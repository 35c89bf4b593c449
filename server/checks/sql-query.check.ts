// sqlQuery: a query against the restored database returns enough rows (expectedMinRows, default 1)
// and, when expectedValue is set, the first column of the first row equals it as a string. With
// freshness (issue 27) that first value is the time of the newest data in the restored copy: the
// check's newestData, from which the run's RPO is measured (domain/run/rpo.ts).
//
// - Credentials come from a Secret restored into the sandbox (keys `username`/`password` unless
//   the check names others); values are base64-decoded from the Secret's data.
// - postgres via `pg` (+ `pg-cursor`), mysql via `mysql2` (sql-drivers.ts). Connect and statement
//   timeouts are the check's timeout; the connection is always closed, also on failure and on
//   timeout. One statement per query (PostgreSQL reads it through a cursor).
// - Bounded: the check reads at most expectedMinRows + 1 rows and 4 MiB from the database, and a
//   value over 64 KiB fails the check. A health check asserts "the data is there", so a query that
//   answers megabytes is a mistake (or an attack on the leader's memory), and says so.
// - Values are compared as the database renders them (see sql-drivers.ts).
// - Messages never contain the password (every message is redacted against it as a last guard).
//   A rejected login, an unreachable server or a failing statement is `error`; rows or a value
//   that differ from the expectation are `fail`.
// - Messages never contain the restored data (issue 26): the report is readable with plain `view`
//   in the test's namespace, which may not be allowed to read the source namespace. A value is
//   described by its size only (a hash of a count or a status word would be the value to anyone
//   who hashes the candidates), and the expected value, which the test's own spec shows, is named.
//   A failing statement keeps the database's message only for errors about the statement itself
//   (syntax, unknown table or column, permissions); data errors ("invalid input syntax for type
//   integer: <a value>") keep their code alone.

import type { SqlQueryCheck } from '../domain/resources/resources.js';
import type { CheckExecutor, CheckOutcome } from './check.js';
import {
  describeError,
  error,
  fail,
  freshnessOutcome,
  isOutcome,
  pass,
  redact,
  requireBlock,
  timedOut,
  truncate,
} from './check.js';
import { formatHostPort, type ResolvedTarget } from './target-resolver.js';
import {
  queryMysql,
  queryPostgres,
  SqlResultTooLargeError,
  SqlStepError,
  type SqlConnectionParameters,
  type SqlRows,
} from './sql-drivers.js';

const DEFAULT_PORT = { postgres: 5432, mysql: 3306 } as const;

/**
 * Errors whose message is about the statement or the schema, never about row data: PostgreSQL's
 * SQLSTATE classes 42 (syntax error or access rule violation) and 3D (unknown database), and the
 * MySQL/MariaDB equivalents.
 */
const STATEMENT_ERRORS = /^(?:42[0-9A-Z]{3}|3D[0-9A-Z]{3}|ER_PARSE_ERROR|ER_NO_SUCH_TABLE|ER_BAD_FIELD_ERROR|ER_BAD_DB_ERROR|ER_TABLEACCESS_DENIED_ERROR|ER_COLUMNACCESS_DENIED_ERROR|ER_SP_DOES_NOT_EXIST|ER_NON_UNIQ_ERROR)$/;

/** A failed statement: the database's message only when it cannot carry row data, else its code. */
function explainQueryError(cause: unknown): string {
  const code = (cause as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && STATEMENT_ERRORS.test(code)) return explainDriverError(cause);
  return typeof code === 'string'
    ? `error ${code} (the database's message is not recorded: it can carry the restored data)`
    : "the database's message is not recorded: it can carry the restored data";
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

/** The most the check reads from the database for one query, all rows together. */
export const MAX_RESULT_BYTES = 4 * 1024 * 1024;
/** The largest value a check accepts (UTF-8 bytes); a larger one fails the check. */
export const MAX_VALUE_BYTES = 64 * 1024;

function oversizedValue(rows: SqlRows): string | undefined {
  for (const [rowIndex, row] of rows.entries()) {
    for (const [columnIndex, value] of row.entries()) {
      const size = value === null ? 0 : Buffer.byteLength(value);
      if (size > MAX_VALUE_BYTES) {
        return `row ${rowIndex + 1} column ${columnIndex + 1} holds ${size} bytes, more than the ${MAX_VALUE_BYTES} bytes a check accepts per value; select a smaller value (e.g. length(...) or count(*))`;
      }
    }
  }
  return undefined;
}

function evaluateRows(rows: SqlRows, spec: SqlQueryCheck, minRows: number, where: string): CheckOutcome {
  const outcome = compareRows(rows, spec, minRows, where);
  if (outcome.status !== 'pass' || !spec.freshness) return outcome;
  const first = rows[0]?.[0];
  if (first === undefined || first === null) return fail(`${outcome.message}, but the freshness value is ${first === null ? 'NULL' : 'missing'}: no RPO measured`);
  return freshnessOutcome(outcome.message, first);
}

function compareRows(rows: SqlRows, spec: SqlQueryCheck, minRows: number, where: string): CheckOutcome {
  const oversized = oversizedValue(rows);
  if (oversized) return fail(`${where}: ${oversized}`);
  const plural = (count: number): string => `${count} row${count === 1 ? '' : 's'}`;
  // Only minRows + 1 rows are read: past minRows the exact count is unknown, and not needed.
  const rowCount = rows.length > minRows ? `more than ${plural(minRows)}` : plural(rows.length);
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
      `${where}: first value (${Buffer.byteLength(first)} bytes) is not the expected "${truncate(spec.expectedValue, 100)}"`,
    );
  }
  return pass(`${where}: query returned ${rowCount}; first value is the expected "${truncate(spec.expectedValue, 100)}"`);
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
    // One row more than needed is enough to tell "at least minRows" (and keeps the count honest).
    const limits = { maxRows: minRows + 1, maxBytes: MAX_RESULT_BYTES };
    const rows =
      spec.engine === 'postgres'
        ? await queryPostgres(parameters, spec.query, limits)
        : await queryMysql(parameters, spec.query, limits);
    outcome = evaluateRows(rows, spec, minRows, where);
  } catch (thrown) {
    if (thrown instanceof SqlResultTooLargeError) {
      outcome = fail(
        `${where}: the result is larger than ${MAX_RESULT_BYTES} bytes (the check reads at most ${minRows + 1} rows and ${MAX_RESULT_BYTES} bytes); make the query return less, e.g. count(*)`,
      );
    } else if (context.signal.aborted) {
      outcome = error(`${where}: ${timedOut(context, 'no result')}`);
    } else if (thrown instanceof SqlStepError) {
      outcome = error(
        thrown.step === 'connect'
          ? `cannot connect to ${where}: ${explainDriverError(thrown.cause)}`
          : `${where}: query failed: ${explainQueryError(thrown.cause)}`,
      );
    } else {
      outcome = error(`${where}: ${describeError(thrown)}`);
    }
  }
  return {
    status: outcome.status,
    message: truncate(redact(outcome.message, [password]), 500),
    ...(outcome.newestData ? { newestData: outcome.newestData } : {}),
  };
};
