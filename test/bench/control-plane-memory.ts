// Memory of a test control plane (test/cluster/up.sh) as bench:footprint reads it: VmRSS of the
// kube-apiserver and etcd processes (/proc/<pid>/status), the apiserver's live Go heap after its
// last GC (go_gc_heap_live_bytes: RSS also holds garbage not yet collected, GOGC=100 lets the heap
// grow to twice the live size) and etcd's database size (total and in use).
import { execFile, spawn } from 'node:child_process';
import { existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
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
  private readonly etcdPid: number;
  private readonly etcdMetricsUrl: string;

  constructor(
    private readonly clusterDir: string,
    private readonly kubectl: string,
    private readonly kubeconfig: string,
  ) {
    this.etcdPid = pidOf(clusterDir, 'etcd');
    const cmdline = readFileSync(`/proc/${this.etcdPid}/cmdline`, 'utf8').split('\0');
    const url = cmdline[cmdline.indexOf('--listen-client-urls') + 1];
    if (!url?.startsWith('http://127.0.0.1:')) throw new Error(`etcd in ${clusterDir} does not listen on loopback`);
    this.etcdMetricsUrl = `${url}/metrics`;
  }

  async sample(): Promise<MemorySample> {
    // A heap profile with gc=1 makes the apiserver collect first: the live heap is then exact.
    await this.raw('/debug/pprof/heap?gc=1');
    const api = (await this.raw('/metrics')).toString('utf8');
    const etcd = await (await fetch(this.etcdMetricsUrl)).text();
    return {
      apiserverRssBytes: rssBytes(pidOf(this.clusterDir, 'kube-apiserver')),
      apiserverHeapLiveBytes: metric(api, 'go_gc_heap_live_bytes'),
      etcdRssBytes: rssBytes(this.etcdPid),
      etcdHeapInuseBytes: metric(etcd, 'go_memstats_heap_inuse_bytes'),
      etcdDbBytes: metric(etcd, 'etcd_mvcc_db_total_size_in_bytes'),
      etcdDbInUseBytes: metric(etcd, 'etcd_mvcc_db_total_size_in_use_in_bytes'),
      load1: loadavg()[0]!,
    };
  }

  /** Saves the apiserver's heap profile (after a GC) for `go tool pprof`: what the live heap is made of. */
  async saveHeapProfile(file: string): Promise<void> {
    writeFileSync(file, await this.raw('/debug/pprof/heap?gc=1'));
  }

  /**
   * GET on the apiserver through kubectl. Retried: on this shared machine the bench's processes
   * are sometimes frozen for minutes (another benchmark stops nice-19 work), and the first request
   * after that can fail its TLS handshake.
   */
  private async raw(uri: string): Promise<Buffer> {
    for (let attempt = 1; ; attempt++) {
      try {
        const { stdout } = await run(this.kubectl, ['--kubeconfig', this.kubeconfig, 'get', '--raw', uri], { maxBuffer: 256 << 20, encoding: 'buffer' });
        return stdout;
      } catch (error) {
        if (attempt >= 6) throw error;
        await sleep(5000);
      }
    }
  }

  /**
   * Restarts kube-apiserver with the same arguments. Its watch cache is then rebuilt from one LIST:
   * the stored objects only, without the history of watch events a bulk load leaves behind (up
   * to ~100,000 events, each holding the object it replaced) — what a long-running apiserver
   * holds when reports arrive one per test per day.
   */
  async restartApiserver(): Promise<void> {
    const pidFile = path.join(this.clusterDir, 'pids', 'kube-apiserver.pid');
    const pid = pidOf(this.clusterDir, 'kube-apiserver');
    const [binary, ...args] = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((part) => part !== '');
    process.kill(pid, 'SIGTERM');
    for (let i = 0; i < 120 && existsSync(`/proc/${pid}`); i++) await sleep(250);
    const out = openSync(path.join(this.clusterDir, 'logs', 'kube-apiserver.log'), 'a');
    const child = spawn(binary!, args, { detached: true, stdio: ['ignore', out, out] });
    child.unref();
    writeFileSync(pidFile, String(child.pid));
    for (let i = 0; ; i++) {
      try {
        await run(this.kubectl, ['--kubeconfig', this.kubeconfig, 'get', '--raw', '/readyz']);
        return;
      } catch (error) {
        if (i >= 240) throw error;
        await sleep(500);
      }
    }
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
