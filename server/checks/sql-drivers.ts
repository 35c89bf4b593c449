// The two SQL drivers of the sqlQuery check, reading at most what the check needs.
//
// A query is user-supplied and runs against a restored database the user controls, so its result
// must not be able to exhaust the leader's memory (SELECT repeat('x', 1e6) FROM
// generate_series(1, 2000) is 2 GB). Two bounds:
// - rows: at most `maxRows` (the check passes expectedMinRows + 1). PostgreSQL reads through a
//   cursor (a portal executed for maxRows rows), so the server sends no more; MySQL has no cursor
//   in its text protocol, so the connection is closed as soon as maxRows rows arrived.
// - bytes: everything received for the statement is counted on the socket, before the driver
//   parses it; past `maxBytes` the socket is destroyed and the check fails. A single huge value
//   cannot slip through, since the driver buffers a row message whole before handing it over.
//
// PostgreSQL values are raw text (no type parsing, so `numeric`/`int8`/`date` compare exactly as
// psql prints them); MySQL is asked for strings for dates, DECIMAL and big integers.
import type { Duplex } from 'node:stream';
import pg from 'pg';
import Cursor from 'pg-cursor';
import mysql from 'mysql2';
import { describeError } from './check.js';

export interface SqlConnectionParameters {
  host: string;
  port: number;
  database: string;
  user: string;
  password: string;
  timeoutMs: number;
  signal: AbortSignal;
}

export interface SqlReadLimits {
  maxRows: number;
  maxBytes: number;
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

/** The statement's answer grew past the byte budget; the connection was cut. */
export class SqlResultTooLargeError extends Error {
  override readonly name = 'SqlResultTooLargeError';
  constructor(readonly maxBytes: number) {
    super(`the result is larger than ${maxBytes} bytes`);
  }
}

const RAW_TEXT_TYPES = { getTypeParser: () => (value: string) => value } as unknown as pg.CustomTypesConfig;

function toText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value as number | bigint | boolean);
}

interface ByteBudget {
  /** Rejects with SqlResultTooLargeError once the budget is spent (never resolves). */
  readonly exceeded: Promise<never>;
  readonly isExceeded: () => boolean;
  dispose(): void;
}

/** Counts what arrives on the socket from now on; past maxBytes it destroys the socket. */
function watchBytes(socket: Duplex, maxBytes: number): ByteBudget {
  let received = 0;
  let over = false;
  let reject: (reason: Error) => void = () => undefined;
  const exceeded = new Promise<never>((_resolve, rejectWith) => (reject = rejectWith));
  exceeded.catch(() => undefined); // observed through race(); never an unhandled rejection
  const onData = (chunk: Buffer): void => {
    received += chunk.length;
    if (received > maxBytes && !over) {
      over = true;
      reject(new SqlResultTooLargeError(maxBytes));
      socket.destroy();
    }
  };
  socket.on('data', onData);
  return { exceeded, isExceeded: () => over, dispose: () => socket.off('data', onData) };
}

export async function queryPostgres(
  parameters: SqlConnectionParameters,
  sql: string,
  limits: SqlReadLimits,
): Promise<SqlRows> {
  const client = new pg.Client({
    host: parameters.host,
    port: parameters.port,
    database: parameters.database,
    user: parameters.user,
    password: parameters.password,
    connectionTimeoutMillis: parameters.timeoutMs,
    statement_timeout: parameters.timeoutMs,
    // No query_timeout: pg arms it for a cursor too but never clears it (a cursor has no callback),
    // so it would fire later on a finished check. The abort signal ends the client instead.
    application_name: 'rehearsal-health-check',
  });
  // An error after connecting (server shutdown, a cut socket) would otherwise be unhandled.
  client.on('error', () => undefined);
  const onAbort = (): void => void client.end().catch(() => undefined);
  parameters.signal.addEventListener('abort', onAbort, { once: true });
  let budget: ByteBudget | undefined;
  try {
    try {
      await client.connect();
    } catch (thrown) {
      throw new SqlStepError('connect', thrown);
    }
    budget = watchBytes(client.connection.stream, limits.maxBytes);
    try {
      const cursor = client.query(
        new Cursor<unknown[]>(sql, [], { rowMode: 'array', types: RAW_TEXT_TYPES }),
      );
      const rows = await Promise.race([cursor.read(limits.maxRows), budget.exceeded]);
      return rows.map((row) => row.map(toText));
    } catch (thrown) {
      if (budget.isExceeded()) throw new SqlResultTooLargeError(limits.maxBytes);
      throw new SqlStepError('query', thrown);
    }
  } finally {
    budget?.dispose();
    parameters.signal.removeEventListener('abort', onAbort);
    await client.end().catch(() => undefined);
  }
}

async function connectMysql(parameters: SqlConnectionParameters): Promise<mysql.Connection> {
  const connection = mysql.createConnection({
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
  connection.on('error', () => undefined);
  try {
    await new Promise<void>((resolve, reject) =>
      connection.connect((failure) => (failure ? reject(failure) : resolve())),
    );
  } catch (thrown) {
    connection.destroy();
    throw new SqlStepError('connect', thrown);
  }
  return connection;
}

/** Reads rows as they stream in and stops after maxRows (then the caller cuts the connection). */
function readMysqlRows(
  connection: mysql.Connection,
  sql: string,
  parameters: SqlConnectionParameters,
  maxRows: number,
): Promise<{ rows: SqlRows; complete: boolean }> {
  return new Promise((resolve, reject) => {
    const rows: SqlRows = [];
    const query = connection.query({ sql, timeout: parameters.timeoutMs, rowsAsArray: true });
    query.on('result', (row: unknown) => {
      // A statement without a result set (UPDATE, ...) yields a ResultSetHeader: not a row.
      if (!Array.isArray(row)) return;
      if (rows.length < maxRows) rows.push(row.map(toText));
      if (rows.length === maxRows) resolve({ rows, complete: false });
    });
    query.on('error', reject);
    query.on('end', () => resolve({ rows, complete: true }));
  });
}

export async function queryMysql(
  parameters: SqlConnectionParameters,
  sql: string,
  limits: SqlReadLimits,
): Promise<SqlRows> {
  const connection = await connectMysql(parameters);
  const onAbort = (): void => connection.destroy();
  parameters.signal.addEventListener('abort', onAbort, { once: true });
  const budget = watchBytes((connection as unknown as { stream: Duplex }).stream, limits.maxBytes);
  // Only a connection whose statement finished can be closed politely; any other is cut, since
  // MySQL would first send every remaining row.
  let polite = false;
  try {
    const read = await Promise.race([
      readMysqlRows(connection, sql, parameters, limits.maxRows),
      budget.exceeded,
    ]);
    polite = read.complete;
    return read.rows;
  } catch (thrown) {
    if (budget.isExceeded()) throw new SqlResultTooLargeError(limits.maxBytes);
    throw new SqlStepError('query', thrown);
  } finally {
    budget.dispose();
    parameters.signal.removeEventListener('abort', onAbort);
    if (polite && !parameters.signal.aborted) {
      await new Promise<void>((resolve) => connection.end(() => resolve()));
    }
    connection.destroy();
  }
}
