// A throw-away MariaDB server for the sqlQuery mysql tests: mariadb-install-db into a temp dir,
// mariadbd on 127.0.0.1 and a free port (admin access only through the unix socket in the temp
// dir), stopped by PID and deleted in stop(). Optional off CI: `mariadbAvailable()` is false on
// machines without `apt-get install -y mariadb-server`, and the real-server tests are skipped there
// with a warning (test/helpers/required-tool.ts; under CI=true they fail instead).

import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createConnection } from 'mysql2/promise';

const run = promisify(execFile);
const MARIADBD = ['/usr/sbin/mariadbd', '/usr/sbin/mysqld'].find((path) => existsSync(path));
const INSTALL_DB = ['/usr/bin/mariadb-install-db', '/usr/bin/mysql_install_db'].find((path) =>
  existsSync(path),
);

export function mariadbAvailable(): boolean {
  return MARIADBD !== undefined && INSTALL_DB !== undefined;
}

export interface MariadbDatabase {
  name: string;
  owner: { user: string; password: string };
  sql?: string[];
}

export interface MariadbServer {
  port: number;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function systemUser(): { user: string; uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const user of ['mysql', 'nobody']) {
    try {
      const uid = Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', user], { encoding: 'utf8' }).trim());
      return { user, uid, gid };
    } catch {
      // next
    }
  }
  throw new Error('running as root: no unprivileged `mysql` or `nobody` user for mariadbd');
}

export async function startMariadb(databases: MariadbDatabase[]): Promise<MariadbServer> {
  if (!MARIADBD || !INSTALL_DB)
    throw new Error('MariaDB is not installed: apt-get update && apt-get install -y mariadb-server');
  const account = systemUser();
  const root = await mkdtemp('/tmp/rehearsal-mariadb-');
  const dataDir = join(root, 'data');
  const socket = join(root, 'mysqld.sock');
  const errorLog = join(root, 'error.log');
  let child: ChildProcess | undefined;

  const stop = async (): Promise<void> => {
    const running = child;
    child = undefined;
    if (running && running.exitCode === null) {
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGTERM');
      const timer = setTimeout(() => running.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
    await rm(root, { recursive: true, force: true });
  };

  try {
    if (account) await chown(root, account.uid, account.gid);
    const userArgs = account ? [`--user=${account.user}`] : [];
    await run(
      INSTALL_DB,
      [
        '--no-defaults',
        `--datadir=${dataDir}`,
        ...userArgs,
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
        '--skip-name-resolve',
      ],
      { timeout: 120_000 },
    );

    const port = await freePort();
    child = spawn(
      MARIADBD,
      [
        '--no-defaults',
        `--datadir=${dataDir}`,
        `--socket=${socket}`,
        `--port=${port}`,
        '--bind-address=127.0.0.1',
        ...userArgs,
        '--skip-name-resolve',
        '--skip-log-bin',
        `--log-error=${errorLog}`,
        `--pid-file=${join(root, 'mysqld.pid')}`,
        '--innodb-buffer-pool-size=16M',
        '--innodb-log-file-size=8M',
        '--performance-schema=OFF',
        '--max-connections=20',
      ],
      { stdio: 'ignore' },
    );

    // Wait until the socket accepts the (password-less, socket-only) root login.
    let admin: Awaited<ReturnType<typeof createConnection>> | undefined;
    for (let attempt = 0; attempt < 300 && !admin; attempt += 1) {
      if (child.exitCode !== null) break;
      admin = await createConnection({ socketPath: socket, user: 'root' }).catch(() => undefined);
      if (!admin) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (!admin) {
      const log = await readFile(errorLog, 'utf8').catch(() => '');
      throw new Error(`mariadbd did not start:\n${log.slice(-2000)}`);
    }
    try {
      for (const database of databases) {
        const user = `'${database.owner.user}'@'127.0.0.1'`;
        await admin.query(`CREATE DATABASE \`${database.name}\``);
        await admin.query(`CREATE USER ${user} IDENTIFIED BY ?`, [database.owner.password]);
        await admin.query(`GRANT ALL ON \`${database.name}\`.* TO ${user}`);
        await admin.query(`USE \`${database.name}\``);
        for (const statement of database.sql ?? []) await admin.query(statement);
      }
    } finally {
      await admin.end();
    }
    return { port, stop };
  } catch (thrown) {
    await stop();
    throw thrown;
  }
}
