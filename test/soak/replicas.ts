// The Rehearsal replicas of the soak: 2 or 3 server processes (server/main.ts through
// test/helpers/rehearsal-server.ts) on one Lease, each on a port of its own, logging to
// <out>/replica-<n>.log. The injector kills them; this restarts them and tells an injected death
// from one of their own (invariant 6). A restarted replica gets a new identity, as a new pod would.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { sleep } from '../helpers/kube.js';
import { startProcess, type ServerProcess, type TestServerEnv } from '../helpers/rehearsal-server.js';
import { scrape } from './scrape.js';

export interface ReplicaSettings {
  kubeconfigPath: string;
  veleroNamespace: string;
  probeTargets: Record<string, string>;
  leaseName: string;
  maxConcurrentRuns: number;
  janitorIntervalSeconds: number;
  logDir: string;
  logLevel: string;
}

export interface RssSample {
  at: number;
  bytes: number;
  /** The replica said it led (rehearsal_leader 1) when sampled; undefined when not asked. */
  leading?: boolean;
}

export class Replica {
  process: ServerProcess | undefined;
  incarnation = 0;
  /** up: serving and not being killed by the injector; the API prober only asks replicas that are up. */
  state: 'starting' | 'up' | 'down' = 'down';
  /** Set just before the injector (or the harness's shutdown) ends the process. */
  exitExpected = false;
  /** RSS per incarnation, sampled by sampleRss(). */
  readonly rss: RssSample[][] = [];

  constructor(
    readonly slot: number,
    readonly port: number,
    readonly logFile: string,
  ) {}

  get identity(): string {
    return `soak-${this.slot}-${this.incarnation}`;
  }

  get name(): string {
    return `replica-${this.slot}`;
  }

  url(pathAndQuery: string): string {
    return `http://127.0.0.1:${this.port}${pathAndQuery}`;
  }
}

export interface ReplicaEvents {
  /** A replica exited without being told to (invariant 6). It is restarted after this call. */
  unexpectedExit(replica: Replica, code: number | null, signal: NodeJS.Signals | null): void;
  log(line: string): void;
}

export class ReplicaSet {
  readonly replicas: Replica[] = [];
  private stopping = false;

  private constructor(
    private readonly settings: ReplicaSettings,
    private readonly events: ReplicaEvents,
  ) {}

  static async start(count: number, settings: ReplicaSettings, events: ReplicaEvents): Promise<ReplicaSet> {
    const set = new ReplicaSet(settings, events);
    for (let slot = 0; slot < count; slot++) {
      set.replicas.push(new Replica(slot, await freePort(), path.join(settings.logDir, `replica-${slot}.log`)));
    }
    // One after the other: three cold tsx starts at once on two busy cores took minutes.
    for (const replica of set.replicas) await set.launch(replica);
    return set;
  }

  up(): Replica[] {
    return this.replicas.filter((replica) => replica.state === 'up');
  }

  /**
   * The replica that says it leads (rehearsal_leader 1 on /metrics, no apiserver needed), or
   * undefined when none does right now. More than one is returned as `all`.
   */
  async leaders(): Promise<{ leader: Replica | undefined; all: Replica[] }> {
    const all: Replica[] = [];
    await Promise.all(
      this.up().map(async (replica) => {
        const text = await scrape(replica);
        if (text !== undefined && /^rehearsal_leader 1$/m.test(text)) all.push(replica);
      }),
    );
    return { leader: all.length === 1 ? all[0] : undefined, all };
  }

  /** SIGKILL (an injected crash); the replica stays down until restart(). */
  async kill(replica: Replica): Promise<void> {
    replica.state = 'down';
    replica.exitExpected = true;
    await replica.process?.crash();
  }

  /** Starts the replica again under a new identity; retried while the apiserver cannot serve it. */
  async restart(replica: Replica): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.launch(replica);
        return;
      } catch (error) {
        if (this.stopping || attempt >= 5) throw error;
        this.events.log(`${replica.name} did not start (attempt ${attempt}): ${(error as Error).message}; retrying`);
        await sleep(5000);
      }
    }
  }

  async stopAll(): Promise<void> {
    this.stopping = true;
    await Promise.all(
      this.replicas.map(async (replica) => {
        replica.exitExpected = true;
        replica.state = 'down';
        const process = replica.process;
        if (!process || process.child.exitCode !== null || process.child.signalCode !== null) return;
        // A replica that does not stop within 20 s of SIGTERM is killed: teardown must end.
        const killer = setTimeout(() => process.child.kill('SIGKILL'), 20_000);
        await process.stop();
        clearTimeout(killer);
      }),
    );
  }

  /** VmRSS of every live replica process, appended to its incarnation's series; `leaders`: who led then. */
  sampleRss(leaders?: ReadonlySet<Replica>): void {
    for (const replica of this.up()) {
      const pid = replica.process?.child.pid;
      if (pid === undefined) continue;
      try {
        const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
        if (match) {
          replica.rss[replica.incarnation - 1]?.push({ at: Date.now(), bytes: Number(match[1]) * 1024, ...(leaders ? { leading: leaders.has(replica) } : {}) });
        }
      } catch {
        // exited between the check and the read: the exit handler has it
      }
    }
  }

  private async launch(replica: Replica): Promise<void> {
    replica.incarnation++;
    replica.rss[replica.incarnation - 1] = [];
    replica.state = 'starting';
    replica.exitExpected = false;
    const env: TestServerEnv & { port: number; logFile: string } = {
      kubeconfigPath: this.settings.kubeconfigPath,
      veleroNamespace: this.settings.veleroNamespace,
      probeTargets: this.settings.probeTargets,
      maxConcurrentRuns: this.settings.maxConcurrentRuns,
      janitorIntervalSeconds: this.settings.janitorIntervalSeconds,
      leaderElection: true,
      leaseName: this.settings.leaseName,
      port: replica.port,
      logFile: replica.logFile,
      extra: {
        REHEARSAL_IDENTITY: replica.identity,
        REHEARSAL_LOG_LEVEL: this.settings.logLevel,
        // A run waits for pods well within the sandbox ttl (soak runs are minutes at most).
        REHEARSAL_POD_READY_TIMEOUT_SECONDS: '90',
      },
    };
    const started = await startProcess(env);
    const incarnation = replica.incarnation;
    started.child.once('exit', (code, signal) => {
      if (replica.incarnation !== incarnation) return;
      replica.state = 'down';
      if (replica.exitExpected || this.stopping) return;
      this.events.unexpectedExit(replica, code, signal);
      void sleep(2000)
        .then(() => (this.stopping ? undefined : this.restart(replica)))
        .catch((error: unknown) => this.events.log(`${replica.name} could not be restarted: ${(error as Error).message}`));
    });
    replica.process = started;
    replica.state = 'up';
    this.events.log(`${replica.name} up as ${replica.identity} (pid ${started.child.pid}, port ${replica.port})`);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const port = (probe.address() as { port: number }).port;
      probe.close(() => resolve(port));
    });
  });
}
