// A throw-away PostgreSQL server for tests: initdb into a temp dir, listen on 127.0.0.1 only (a
// free port; the unix socket lives in the temp dir), password auth (scram-sha-256), optional
// databases with their own login role and setup SQL, and stop() that stops the server and removes
// every file. Nothing is installed or left running.
//
// Requirements (checked on start, with a message that says how to fix them):
// - PostgreSQL server binaries initdb and pg_ctl: $PG_BIN_DIR, else the newest
//   /usr/lib/postgresql/<version>/bin, else $PATH. On Debian/Ubuntu:
//       apt-get update && apt-get install -y postgresql
//   (bookworm ships PostgreSQL 15; the package also creates the `postgres` system user).
// - When the tests run as root (CI containers): postgres refuses to run as root, so the server
//   runs as the unprivileged `postgres` user (or `nobody` when that does not exist) through
//   `runuser` from util-linux (present on Debian/Ubuntu images).

import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

export const POSTGRES_INSTALL_HINT =
  'PostgreSQL server binaries (initdb, pg_ctl) were not found. Install them with ' +
  '`apt-get update && apt-get install -y postgresql` (Debian bookworm: PostgreSQL 15 in ' +
  '/usr/lib/postgresql/15/bin), or set PG_BIN_DIR to a directory that contains initdb and pg_ctl.';

export interface DatabaseSetup {
  name: string;
  /** A login role that owns the database (created with this password). */
  owner: { user: string; password: string };
  /** Statements run in the new database as its owner (create tables, insert rows). */
  sql?: string[];
}

export interface StartPostgresOptions {
  databases?: DatabaseSetup[];
}

export interface PostgresServer {
  host: '127.0.0.1';
  port: number;
  /** Superuser created by initdb, with a random password. */
  admin: { user: string; password: string };
  /** Runs SQL as the superuser (in `postgres`, or the given database). */
  query(sql: string, database?: string): Promise<pg.QueryResult>;
  /** Stops the server and deletes its directory. Safe to call twice. */
  stop(): Promise<void>;
}

function findBinaryDir(): string {
  const fromEnv = process.env.PG_BIN_DIR;
  if (fromEnv) {
    if (existsSync(join(fromEnv, 'initdb')) && existsSync(join(fromEnv, 'pg_ctl'))) return fromEnv;
    throw new Error(`PG_BIN_DIR=${fromEnv} has no initdb/pg_ctl. ${POSTGRES_INSTALL_HINT}`);
  }
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter(
        (version) =>
          existsSync(join(root, version, 'bin', 'initdb')) &&
          existsSync(join(root, version, 'bin', 'pg_ctl')),
      )
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(root, versions[0], 'bin');
  }
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  }
  throw new Error(POSTGRES_INSTALL_HINT);
}

interface RunAs {
  user: string;
  uid: number;
  gid: number;
}

/** The unprivileged account to run the server as when we are root; undefined otherwise. */
function unprivilegedAccount(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  if (!existsSync('/usr/sbin/runuser') && !existsSync('/sbin/runuser') && !existsSync('/usr/bin/runuser')) {
    throw new Error(
      'running as root: PostgreSQL must run as an unprivileged user, which needs `runuser` (util-linux)',
    );
  }
  for (const user of ['postgres', 'nobody']) {
    try {
      const uid = Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', user], { encoding: 'utf8' }).trim());
      if (Number.isInteger(uid) && uid > 0) return { user, uid, gid };
    } catch {
      // try the next account
    }
  }
  throw new Error('running as root: no unprivileged `postgres` or `nobody` user to run PostgreSQL as');
}

async function runBinary(
  binDir: string,
  account: RunAs | undefined,
  binary: string,
  args: string[],
): Promise<void> {
  const path = join(binDir, binary);
  const [command, argv] = account ? ['runuser', ['-u', account.user, '--', path, ...args]] : [path, args];
  try {
    await run(command, argv, {
      timeout: 60_000,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' },
    });
  } catch (thrown) {
    const stderr = (thrown as { stderr?: string }).stderr ?? '';
    throw new Error(`${binary} ${args[0] ?? ''} failed: ${stderr.trim() || String(thrown)}`);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

async function chownTree(paths: string[], account: RunAs | undefined): Promise<void> {
  if (!account) return;
  for (const path of paths) await chown(path, account.uid, account.gid);
}

export async function startPostgres(options: StartPostgresOptions = {}): Promise<PostgresServer> {
  const binDir = findBinaryDir();
  const account = unprivilegedAccount();
  // As root, os.tmpdir() could be a directory the unprivileged user cannot enter; /tmp always works.
  const root = await mkdtemp(join(account ? '/tmp' : tmpdir(), 'rehearsal-pg-'));
  const dataDir = join(root, 'data');
  const socketDir = join(root, 'socket');
  const passwordFile = join(root, 'password');
  const logFile = join(root, 'server.log');
  const admin = { user: 'rehearsal_admin', password: `admin-${randomBytes(12).toString('hex')}` };
  let started = false;

  const stop = async (): Promise<void> => {
    if (started) {
      started = false;
      await runBinary(binDir, account, 'pg_ctl', [
        'stop',
        '-D',
        dataDir,
        '-m',
        'immediate',
        '-w',
        '-t',
        '30',
      ]).catch(() => undefined);
    }
    await rm(root, { recursive: true, force: true });
  };

  try {
    await mkdir(socketDir);
    await writeFile(passwordFile, `${admin.password}\n`, { mode: 0o600 });
    await writeFile(logFile, '');
    await chmod(root, 0o700);
    await chownTree([root, socketDir, passwordFile, logFile], account);

    await runBinary(binDir, account, 'initdb', [
      '-D',
      dataDir,
      '-U',
      admin.user,
      `--pwfile=${passwordFile}`,
      '--auth=scram-sha-256',
      '--encoding=UTF8',
      '--locale=C',
      '--no-sync',
    ]);

    let port = 0;
    for (let attempt = 1; ; attempt += 1) {
      port = await freePort();
      const serverOptions = [
        '-c listen_addresses=127.0.0.1',
        `-c port=${port}`,
        `-c unix_socket_directories=${socketDir}`,
        '-c fsync=off',
        '-c synchronous_commit=off',
        '-c full_page_writes=off',
        '-c max_connections=20',
        '-c shared_buffers=16MB',
        '-c max_wal_size=64MB',
      ].join(' ');
      try {
        await runBinary(binDir, account, 'pg_ctl', [
          'start',
          '-D',
          dataDir,
          '-l',
          logFile,
          '-w',
          '-t',
          '60',
          '-o',
          serverOptions,
        ]);
        started = true;
        break;
      } catch (thrown) {
        // Another process may have taken the port between probing and binding: try another one.
        if (attempt >= 3) {
          const log = await readFile(logFile, 'utf8').catch(() => '');
          throw new Error(`${(thrown as Error).message}\n--- server log ---\n${log.slice(-2000)}`);
        }
      }
    }

    const query = async (sql: string, database = 'postgres'): Promise<pg.QueryResult> => {
      const client = new pg.Client({
        host: '127.0.0.1',
        port,
        user: admin.user,
        password: admin.password,
        database,
      });
      await client.connect();
      try {
        return await client.query(sql);
      } finally {
        await client.end();
      }
    };

    for (const database of options.databases ?? []) {
      const role = pg.escapeIdentifier(database.owner.user);
      const name = pg.escapeIdentifier(database.name);
      await query(`CREATE ROLE ${role} LOGIN PASSWORD ${pg.escapeLiteral(database.owner.password)}`);
      await query(`CREATE DATABASE ${name} OWNER ${role}`);
      if (database.sql?.length) {
        const client = new pg.Client({
          host: '127.0.0.1',
          port,
          user: database.owner.user,
          password: database.owner.password,
          database: database.name,
        });
        await client.connect();
        try {
          for (const statement of database.sql) await client.query(statement);
        } finally {
          await client.end();
        }
      }
    }

    return { host: '127.0.0.1', port, admin, query, stop };
  } catch (thrown) {
    await stop();
    throw thrown;
  }
}
