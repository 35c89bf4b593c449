// The orders table the volume-data tests write into the real-node PostgreSQL of real-node-app.ts
// (issue 27): rows 1–3 before the backup, 4–5 after it, so a restore of the backup must hold
// exactly 1,2,3; and the checks a restore test runs in the restored database to say so.
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { psqlCommand } from './real-node-app.js';
import { execInPod } from './real-node.js';

/** Every row's id, in order: "1,2,3". */
export const ORDERS_ROWS = `select string_agg(id::text, ',' order by id) from orders`;

/** Runs SQL in a pod of addRealNodePostgres; the unaligned output, trimmed. */
export type Sql = (statement: string) => Promise<string>;

export function sqlIn(kubeConfig: KubeConfig, namespace: string, pod = 'pg-0'): Sql {
  return async (statement) => {
    const result = await execInPod(kubeConfig, namespace, pod, 'postgres', psqlCommand(statement));
    if (result.exitCode !== 0) throw new Error(`psql in ${namespace}/${pod} exited ${result.exitCode}: ${result.stderr}`);
    return result.stdout.trim();
  };
}

/** Creates the table with rows 1–3; returns when row 3 was written (production's clock). */
export async function writeOrdersBeforeBackup(sql: Sql): Promise<Date> {
  await sql('create table orders (id int primary key, placed_at timestamptz not null default now())');
  await sql('insert into orders (id) values (1), (2), (3)');
  return new Date(Number(await sql('select extract(epoch from placed_at) from orders where id = 3')) * 1000);
}

/** Rows 4–5, a little later: a restore of the backup must not have them. */
export async function writeOrdersAfterBackup(sql: Sql): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 2_000)); // their time is clearly later
  await sql('insert into orders (id) values (4), (5)');
}

/** The production claim's volume and its resourceVersion, to show later that nothing touched them. */
export async function productionVolumeOf(kubeConfig: KubeConfig, namespace: string, claim = 'data-pg-0'): Promise<{ name: string; resourceVersion: string }> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const name = (await core.readNamespacedPersistentVolumeClaim({ namespace, name: claim })).spec!.volumeName!;
  return { name, resourceVersion: (await core.readPersistentVolume({ name })).metadata!.resourceVersion! };
}

/**
 * The checks a restore test runs in the restored database (exec in its container): exactly the
 * rows written before the backup (critical), none after (critical), and the newest order's time
 * as the measured RPO's freshness.
 */
export function ordersChecks() {
  const inDatabase = (statement: string, expected: string) => ({
    kind: 'exec' as const,
    exec: { selector: { app: 'pg' }, container: 'postgres', command: ['sh', '-c', `test "$(psql -h /run/postgresql -U app -d shop -tAc "${statement}")" = '${expected}'`] },
  });
  return [
    { name: 'rows-up-to-the-backup', critical: true, ...inDatabase(ORDERS_ROWS, '1,2,3') },
    { name: 'no-rows-after-the-backup', critical: true, ...inDatabase('select count(*) from orders where id > 3', '0') },
    {
      name: 'orders-freshness',
      kind: 'exec' as const,
      exec: { selector: { app: 'pg' }, container: 'postgres', command: psqlCommand('select extract(epoch from max(placed_at)) from orders'), freshness: true },
    },
  ];
}
