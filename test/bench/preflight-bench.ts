// `npm run bench:preflight` — what one pre-flight check (issue 32, decision 0021) costs the leader
// on a large backup: a Velero-shaped tarball (gzip'd ustar, one JSON file per object) of
// `--objects` objects (default 40,000: a tenth workloads, a tenth claims, the rest Secrets and
// ConfigMaps of ~4 KB, as Velero lays them out) served over HTTP on 127.0.0.1, read by the
// engine's own reader (readBackupManifests: streamed, only claims and workloads kept) and checked
// (preflight()). Prints the tarball's size, the wall time and CPU of the read and of the checks,
// the longest event-loop delay, and the peak RSS and heap rise. No cluster.
//
//   npm run bench:preflight -- [--objects N]
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { preflight } from '../../server/domain/preflight/preflight-checks.js';
import { DEFAULT_DOWNLOAD_LIMITS } from '../../server/providers/velero/download-request.js';
import { readBackupManifests } from '../../server/providers/velero/backup-contents.js';
import type { VeleroCustomObjectsApi } from '../../server/providers/velero/velero-types.js';

const objectsArg = process.argv.indexOf('--objects');
const OBJECTS = objectsArg > 0 ? Number(process.argv[objectsArg + 1]) : 40_000;
const NS = 'shop';

function header(path: string, size: number): Buffer {
  const block = Buffer.alloc(512);
  block.write(path, 0, 100, 'utf8');
  block.write('0000644\0', 100);
  block.write('0000000\0', 108);
  block.write('0000000\0', 116);
  block.write(`${size.toString(8).padStart(11, '0')}\0`, 124);
  block.write(`${Math.floor(Date.now() / 1000).toString(8).padStart(11, '0')}\0`, 136);
  block.write('        ', 148);
  block.write('0', 156);
  block.write('ustar\0', 257);
  block.write('00', 263);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return block;
}

function file(path: string, object: unknown): Buffer[] {
  const data = Buffer.from(JSON.stringify(object));
  return [header(path, data.length), data, Buffer.alloc((512 - (data.length % 512)) % 512)];
}

function tarball(): { gz: Buffer; raw: number; kinds: { apiVersion: string; kind: string; sourceNamespace: string; names: string[] }[] } {
  const parts: Buffer[] = [];
  const names = { Deployment: [] as string[], PersistentVolumeClaim: [] as string[], Secret: [] as string[], ConfigMap: [] as string[] };
  const filler = 'x'.repeat(4000);
  for (let index = 0; index < OBJECTS; index += 1) {
    const name = `obj-${index}`;
    const slot = index % 10;
    if (slot === 0) {
      names.Deployment.push(name);
      parts.push(
        ...file(`resources/deployments.apps/namespaces/${NS}/${name}.json`, {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name, namespace: NS },
          spec: {
            replicas: 1,
            template: {
              spec: {
                containers: [{ name: 'app', image: `registry.local/app-${index % 50}:1`, envFrom: [{ secretRef: { name: `obj-${index + 2}` } }], resources: { requests: { cpu: '10m', memory: '16Mi' } } }],
                volumes: [{ persistentVolumeClaim: { claimName: `obj-${index + 1}` } }],
              },
            },
          },
        }),
      );
    } else if (slot === 1) {
      names.PersistentVolumeClaim.push(name);
      parts.push(...file(`resources/persistentvolumeclaims/namespaces/${NS}/${name}.json`, { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name, namespace: NS }, spec: { storageClassName: 'standard', resources: { requests: { storage: '1Gi' } } } }));
    } else {
      const kind = slot % 2 === 0 ? 'Secret' : 'ConfigMap';
      names[kind].push(name);
      parts.push(...file(`resources/${kind === 'Secret' ? 'secrets' : 'configmaps'}/namespaces/${NS}/${name}.json`, { apiVersion: 'v1', kind, metadata: { name, namespace: NS }, data: { value: filler } }));
    }
  }
  parts.push(Buffer.alloc(1024));
  const raw = Buffer.concat(parts);
  return {
    gz: gzipSync(raw, { level: 6 }),
    raw: raw.length,
    kinds: Object.entries(names).map(([kind, list]) => ({ apiVersion: kind === 'Deployment' ? 'apps/v1' : 'v1', kind, sourceNamespace: NS, names: list })),
  };
}

function rssMiB(): number {
  return process.memoryUsage().rss / 2 ** 20;
}

async function main(): Promise<void> {
  const built = tarball();
  const server = createServer((_request, response) => response.end(built.gz));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/backup.tar.gz`;
  const velero = {
    createNamespacedCustomObject: async () => ({ metadata: { name: 'rehearsal-bench' } }),
    getNamespacedCustomObject: async () => ({ metadata: { name: 'rehearsal-bench' }, status: { phase: 'Processed', downloadURL: url } }),
    deleteNamespacedCustomObject: async () => ({}),
  } as unknown as VeleroCustomObjectsApi;

  global.gc?.();
  await new Promise((resolve) => setTimeout(resolve, 100));
  global.gc?.();
  const rssBefore = rssMiB();
  const heapBefore = process.memoryUsage().heapUsed / 2 ** 20;
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMiB())), 5);
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const objects = await readBackupManifests(velero, 'velero.io', 'velero', 'bench', [NS], { ...DEFAULT_DOWNLOAD_LIMITS, pollIntervalMs: 1 });
  const t1 = performance.now();
  const cpu1 = process.cpuUsage(cpu0);
  const outcome = preflight(
    { kinds: built.kinds, objects },
    { serves: () => true, storageClasses: new Set(['standard']), defaultStorageClass: 'standard', nodeImages: new Set(), quota: { storage: '100Ti', claims: 100_000 } },
  );
  const t2 = performance.now();
  delay.disable();
  clearInterval(sampler);
  rssPeak = Math.max(rssPeak, rssMiB());
  global.gc?.();
  const heapAfter = process.memoryUsage().heapUsed / 2 ** 20;
  server.close();

  console.log(`objects in the backup      ${OBJECTS.toLocaleString('en')} (${(built.raw / 2 ** 20).toFixed(1)} MiB tar, ${(built.gz.length / 2 ** 20).toFixed(1)} MiB gzip)`);
  console.log(`objects kept               ${objects.length.toLocaleString('en')} (claims and workloads)`);
  console.log(`read (stream + parse)      ${(t1 - t0).toFixed(0)} ms wall, ${((cpu1.user + cpu1.system) / 1000).toFixed(0)} ms CPU`);
  console.log(`checks                     ${(t2 - t1).toFixed(0)} ms (${outcome.result}, ${outcome.problems.length} problems kept)`);
  console.log(`longest event-loop delay   ${(delay.max / 1e6).toFixed(1)} ms`);
  console.log(`RSS                        ${rssBefore.toFixed(0)} MiB before, peak ${rssPeak.toFixed(0)} MiB (+${(rssPeak - rssBefore).toFixed(0)})`);
  console.log(`heap retained after a GC   +${(heapAfter - heapBefore).toFixed(1)} MiB (the kept objects, still referenced)`);
  console.log(`load average               ${(await import('node:os')).loadavg().map((value) => value.toFixed(1)).join(' ')}`);
}

await main();
