// Invariant 6: no process crash other than the injected ones. A replica that exits on its own is
// reported by replicas.ts (unexpectedExit); besides, the replicas' logs are scanned every 30 s and
// at the end for "unhandled" and "uncaught" (Node's unhandled rejections and exceptions), which a
// process that survives them would otherwise hide.
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import type { Replica } from '../replicas.js';
import type { Violations } from './violations.js';

const SUSPICIOUS = /unhandled|uncaught/i;

export class CrashWatch {
  unexpectedExits = 0;
  private readonly offsets = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly logFiles: () => string[],
    private readonly violations: Violations,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.scanLogs(), 30_000);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  exited(replica: Replica, code: number | null, signal: NodeJS.Signals | null): void {
    this.unexpectedExits++;
    this.violations.record(
      'no-crash',
      `${replica.name} (${replica.identity}) exited on its own (code ${code}, signal ${signal}); see ${replica.logFile}`,
      `exit ${replica.identity}`,
    );
  }

  /** Reads what the logs gained since the last scan. */
  scanLogs(): void {
    for (const file of this.logFiles()) {
      if (!existsSync(file)) continue;
      const size = statSync(file).size;
      const from = this.offsets.get(file) ?? 0;
      if (size <= from) continue;
      const buffer = Buffer.alloc(size - from);
      const fd = openSync(file, 'r');
      try {
        readSync(fd, buffer, 0, buffer.length, from);
      } finally {
        closeSync(fd);
      }
      const text = buffer.toString('utf8');
      const complete = text.lastIndexOf('\n') + 1; // a line still being written waits for the next scan
      this.offsets.set(file, from + Buffer.byteLength(text.slice(0, complete)));
      for (const line of text.slice(0, complete).split('\n')) {
        if (SUSPICIOUS.test(line)) this.violations.record('no-crash', `${file}: ${line.slice(0, 300)}`, `${file} ${line.slice(0, 120)}`);
      }
    }
  }
}
