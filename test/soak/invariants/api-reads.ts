// Invariant 5: API reads answer during faults. Every second GET /api/v1/tests and
// GET /api/v1/reports go to a replica that is up (in turn): a 200 (served from its caches), or a
// 503 that is problem+json (not ready, apiserver unreachable) is fine; any other status, a body
// that is not one of those, or no answer within 10 s is a violation. A request to a replica the
// injector killed meanwhile is not counted.
import type { Replica, ReplicaSet } from '../replicas.js';
import type { Violations } from './violations.js';

const HANG_MS = 10_000;
const PATHS = ['/api/v1/tests', '/api/v1/reports?limit=100'];

export class ApiReadProbe {
  ok = 0;
  unavailable = 0;
  bad = 0;
  skipped = 0;
  readonly latenciesMs: number[] = [];
  private timer: NodeJS.Timeout | undefined;
  private turn = 0;
  private inFlight = 0;

  constructor(
    private readonly replicas: ReplicaSet,
    private readonly violations: Violations,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.tick(), 1000);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private tick(): void {
    const up = this.replicas.up();
    // A hang is judged by its own timeout; more than a few at once would only pile up.
    if (up.length === 0 || this.inFlight >= 8) return;
    const replica = up[this.turn++ % up.length]!;
    for (const path of PATHS) void this.probe(replica, path);
  }

  private async probe(replica: Replica, path: string): Promise<void> {
    const incarnation = replica.incarnation;
    const started = Date.now();
    this.inFlight++;
    try {
      const response = await fetch(replica.url(path), { signal: AbortSignal.timeout(HANG_MS) });
      const body = await response.text();
      const elapsed = Date.now() - started;
      if (this.killedMeanwhile(replica, incarnation)) return;
      this.latenciesMs.push(elapsed);
      const type = response.headers.get('content-type') ?? '';
      if (response.status === 200) this.ok++;
      else if (response.status === 503 && type.startsWith('application/problem+json')) this.unavailable++;
      else {
        this.bad++;
        this.violations.record(
          'api-reads',
          `GET ${path} on ${replica.name} (${replica.identity}) answered ${response.status} ${type}: ${body.slice(0, 200)}`,
          `${path} ${response.status} ${Math.floor(started / 60_000)}`,
        );
      }
    } catch (error) {
      if (this.killedMeanwhile(replica, incarnation)) return;
      this.bad++;
      const name = (error as Error).name;
      const what = name === 'TimeoutError' ? `no answer within ${HANG_MS / 1000} s` : `failed: ${(error as Error).message}`;
      this.violations.record('api-reads', `GET ${path} on ${replica.name} (${replica.identity}) ${what}`, `${path} ${name} ${Math.floor(started / 60_000)}`);
    } finally {
      this.inFlight--;
    }
  }

  private killedMeanwhile(replica: Replica, incarnation: number): boolean {
    if (replica.incarnation === incarnation && replica.state === 'up') return false;
    this.skipped++;
    return true;
  }

  figures(): { ok: number; unavailable503: number; bad: number; skippedKilled: number; p50Ms: number; p99Ms: number; maxMs: number } {
    const sorted = [...this.latenciesMs].sort((a, b) => a - b);
    const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
    return { ok: this.ok, unavailable503: this.unavailable, bad: this.bad, skippedKilled: this.skipped, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: sorted.at(-1) ?? 0 };
  }
}
