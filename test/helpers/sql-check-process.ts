// Runs one sqlQuery check in a fresh Node process and reports its outcome and peak RSS, so a test
// can state what the check costs a server process (a Jest worker's own RSS depends on whatever
// else ran in it). Usage: tsx test/helpers/sql-check-process.ts '<json of SqlCheckRun>'
import { fileURLToPath } from 'node:url';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { runSqlQueryCheck } from '../../server/checks/sql-query.check.js';
import { StaticTargetResolver } from '../../server/checks/target-resolver.js';
import type { SandboxReader } from '../../server/checks/sandbox-reader.js';
import type { SqlQueryCheck } from '../../server/domain/resources/resources.js';

export interface SqlCheckRun {
  engine: 'postgres' | 'mysql';
  port: number;
  database: string;
  user: string;
  password: string;
  query: string;
}

export interface SqlCheckProcessResult {
  status: string;
  message: string;
  baselineRssBytes: number;
  peakRssBytes: number;
}

async function main(run: SqlCheckRun): Promise<SqlCheckProcessResult> {
  const reader = {
    getSecret: async () => ({
      data: {
        username: Buffer.from(run.user).toString('base64'),
        password: Buffer.from(run.password).toString('base64'),
      },
    }),
  } as unknown as SandboxReader;
  const sqlQuery: SqlQueryCheck = {
    engine: run.engine,
    service: 'db',
    port: 1,
    database: run.database,
    credentialsSecret: { name: 'db' },
    query: run.query,
  };
  const baselineRssBytes = process.memoryUsage.rss();
  let peakRssBytes = baselineRssBytes;
  const timer = setInterval(() => (peakRssBytes = Math.max(peakRssBytes, process.memoryUsage.rss())), 5);
  const outcome = await runSqlQueryCheck(
    { name: 'bomb', kind: 'sqlQuery', sqlQuery },
    {
      reader,
      targets: new StaticTargetResolver({ 'db:1': `127.0.0.1:${run.port}` }),
      namespace: 'sandbox',
      sourceNamespace: 'source',
      timeoutMs: 20_000,
      signal: new AbortController().signal,
    },
  );
  clearInterval(timer);
  peakRssBytes = Math.max(peakRssBytes, process.memoryUsage.rss());
  return { ...outcome, baselineRssBytes, peakRssBytes };
}

/** Spawns this file under tsx and resolves with what the child measured. */
export function runSqlCheckInProcess(run: SqlCheckRun): Promise<SqlCheckProcessResult> {
  const here = fileURLToPath(import.meta.url);
  const tsx = path.resolve(path.dirname(here), '../../node_modules/.bin/tsx');
  return new Promise((resolve, reject) => {
    execFile(tsx, [here, JSON.stringify(run)], { timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stderr}`));
      else resolve(JSON.parse(stdout.trim().split('\n').at(-1)!) as SqlCheckProcessResult);
    });
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  void main(JSON.parse(process.argv[2]!) as SqlCheckRun).then((result) => {
    console.log(JSON.stringify(result));
    process.exit(0);
  });
}
