// What a benchmark reads about a server process from /proc: resident memory now and at its peak,
// CPU time, and whether it has gone quiet (background work after start-up done).
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

export interface ResidentMemory {
  vmRssMb: number;
  vmHwmMb: number;
}

export function rssOf(pid: number): ResidentMemory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { vmRssMb: Math.round(kb('VmRSS') / 102.4) / 10, vmHwmMb: Math.round(kb('VmHWM') / 102.4) / 10 };
}

export function cpuTicks(pid: number): number {
  // /proc/<pid>/stat: fields 14 and 15 (utime, stime) after the parenthesised command name.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * Waits until the process uses less than `share` of a core over two 2-s samples (at most
 * `maxMs`); returns the seconds waited. Throws when the process is gone.
 */
export async function waitUntilSettled(pid: number, maxMs = 600_000, share = 0.15): Promise<number> {
  const started = performance.now();
  const ticksPerSecond = 100; // USER_HZ on Linux
  let quiet = 0;
  let previous = cpuTicks(pid);
  while (quiet < 2 && performance.now() - started < maxMs) {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const current = cpuTicks(pid);
    quiet = (current - previous) / ticksPerSecond / 2 < share ? quiet + 1 : 0;
    previous = current;
  }
  return Math.round((performance.now() - started) / 10) / 100;
}
