// Memory of a test control plane (test/cluster/up.sh) as bench:footprint reads it: VmRSS of the
// kube-apiserver and etcd processes (/proc/<pid>/status), the apiserver's live Go heap after its
// last GC (go_gc_heap_live_bytes: RSS also holds garbage not yet collected, GOGC=100 lets the heap
// grow to twice the live size) and etcd's database size (total and in use).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface MemorySample {
  apiserverRssBytes: number;
  apiserverHeapLiveBytes: number;
  etcdRssBytes: number;
  etcdHeapInuseBytes: number;
  etcdDbBytes: number;
  etcdDbInUseBytes: number;
  load1: number;
}

function pidOf(clusterDir: string, name: string): number {
  return Number(readFileSync(path.join(clusterDir, 'pids', `${name}.pid`), 'utf8').trim());
}

function rssBytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]) * 1024;
}

function metric(text: string, name: string): number {
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  if (!match) throw new Error(`metric ${name} not found`);
  return Number(match[1]);
}

export class ControlPlaneMemory {
  private readonly apiserverPid: number;
  private readonly etcdPid: number;
  private readonly etcdMetricsUrl: string;

  constructor(
    private readonly clusterDir: string,
    private readonly kubectl: string,
    private readonly kubeconfig: string,
  ) {
    this.apiserverPid = pidOf(clusterDir, 'kube-apiserver');
    this.etcdPid = pidOf(clusterDir, 'etcd');
    const cmdline = readFileSync(`/proc/${this.etcdPid}/cmdline`, 'utf8').split('\0');
    const url = cmdline[cmdline.indexOf('--listen-client-urls') + 1];
    if (!url?.startsWith('http://127.0.0.1:')) throw new Error(`etcd in ${clusterDir} does not listen on loopback`);
    this.etcdMetricsUrl = `${url}/metrics`;
  }

  async sample(): Promise<MemorySample> {
    const { stdout: api } = await run(this.kubectl, ['--kubeconfig', this.kubeconfig, 'get', '--raw', '/metrics'], {
      maxBuffer: 64 << 20,
    });
    const etcd = await (await fetch(this.etcdMetricsUrl)).text();
    return {
      apiserverRssBytes: rssBytes(this.apiserverPid),
      apiserverHeapLiveBytes: metric(api, 'go_gc_heap_live_bytes'),
      etcdRssBytes: rssBytes(this.etcdPid),
      etcdHeapInuseBytes: metric(etcd, 'go_memstats_heap_inuse_bytes'),
      etcdDbBytes: metric(etcd, 'etcd_mvcc_db_total_size_in_bytes'),
      etcdDbInUseBytes: metric(etcd, 'etcd_mvcc_db_total_size_in_use_in_bytes'),
      load1: loadavg()[0]!,
    };
  }

  /** Waits `settleSeconds`, then takes `count` samples `gapSeconds` apart and keeps the median of each value. */
  async settled(settleSeconds: number, count = 3, gapSeconds = 5): Promise<MemorySample> {
    await sleep(settleSeconds * 1000);
    const samples: MemorySample[] = [];
    for (let i = 0; i < count; i++) {
      if (i > 0) await sleep(gapSeconds * 1000);
      samples.push(await this.sample());
    }
    const median = (pick: (s: MemorySample) => number): number => {
      const values = samples.map(pick).sort((a, b) => a - b);
      return values[Math.floor(values.length / 2)]!;
    };
    return {
      apiserverRssBytes: median((s) => s.apiserverRssBytes),
      apiserverHeapLiveBytes: median((s) => s.apiserverHeapLiveBytes),
      etcdRssBytes: median((s) => s.etcdRssBytes),
      etcdHeapInuseBytes: median((s) => s.etcdHeapInuseBytes),
      etcdDbBytes: median((s) => s.etcdDbBytes),
      etcdDbInUseBytes: median((s) => s.etcdDbInUseBytes),
      load1: Math.max(...samples.map((s) => s.load1)),
    };
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
