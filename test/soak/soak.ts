// The chaos soak (issue 31): its own control plane, the Velero simulator, 2–3 Rehearsal replicas
// on one Lease, runs finishing continuously, seeded faults, and the invariants checked while it
// runs and at the end. main.ts is the command line; this wires the parts and owns the order of
// start and teardown (the control plane goes down even when something failed).
import { appendFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../helpers/cluster-info.js';
import { sleep } from '../helpers/kube.js';
import { rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { ClusterView } from './cluster-view.js';
import { SoakControlPlane } from './control-plane.js';
import { FaultInjector, FaultNotPossible, type FaultActions, type FaultKind } from './fault-injector.js';
import { ApiReadProbe } from './invariants/api-reads.js';
import { CrashWatch } from './invariants/crashes.js';
import { verifyChains } from './invariants/evidence-chains.js';
import { RunLedger } from './invariants/run-ledger.js';
import { RunSlotWatch } from './invariants/run-slots.js';
import { SandboxWatch } from './invariants/sandboxes.js';
import { Violations, type InvariantName } from './invariants/violations.js';
import { SeededRandom } from './prng.js';
import { ReplicaSet, type Replica } from './replicas.js';
import { leadingStretches, rssFigures, type SoakSummary } from './report.js';
import { createSoakFixture, RunDriver, type SoakFixture } from './run-driver.js';

export type { SoakSummary } from './report.js';

export interface SoakOptions {
  minutes: number;
  seed: number;
  replicas: number;
  tests: number;
  maxConcurrentRuns: number;
  sandboxTtl: string;
  janitorIntervalSeconds: number;
  minGapSeconds: number;
  maxGapSeconds: number;
  warmUpSeconds: number;
  kinds: readonly FaultKind[];
  /** up.sh's work directory (the soak's own control plane). */
  clusterDir: string;
  /** Logs, kubeconfig and summary.json. */
  outDir: string;
  logLevel: string;
  drainTimeoutSeconds: number;
  /** At the end, wait for the last sandboxes' expiry so a leaked one is caught (invariant 3). */
  settleSandboxes: boolean;
}

const NOT_COVERED = [
  'fault: etcd compaction forcing watches to re-list (410 Gone)',
  'fault: the leader cut off from the apiserver through a proxy',
  'fault: the S3 evidence archive down (no archive is configured)',
  'fault: the real Velero killed mid-restore (the simulator is stopped and started instead)',
  "fault: the real node's kubelet restarted (KWOK node only)",
  "fault: a replica's clock skewed",
  'invariant: no two leaders act in the same term (only samples of rehearsal_leader are counted)',
  'invariant: RoleBindings, NetworkPolicies, volumes and Velero objects outliving their run (sandbox namespaces only)',
  'invariant: memory flat per run (RSS is sampled and printed per leading stretch, not judged)',
  'upgrades from a previous release',
];

export async function runSoak(options: SoakOptions, signal: AbortSignal): Promise<SoakSummary> {
  mkdirSync(options.outDir, { recursive: true });
  for (const file of readdirSync(options.outDir)) if (/^(replica-\d+|soak)\.log$|^summary\.json$/.test(file)) rmSync(path.join(options.outDir, file));
  const soakLog = path.join(options.outDir, 'soak.log');
  const log = (line: string): void => {
    console.log(line);
    appendFileSync(soakLog, `${new Date().toISOString()} ${line}\n`);
  };
  const quiet = (line: string): void => appendFileSync(soakLog, `${new Date().toISOString()} ${line}\n`);
  const random = new SeededRandom(options.seed);
  const faultRandom = random.fork('faults');
  const driverRandom = random.fork('driver');
  const startedAt = new Date();
  const timers: NodeJS.Timeout[] = [];
  let replicas: ReplicaSet | undefined;
  let fixture: SoakFixture | undefined;
  let view: ClusterView | undefined;
  let stopWatches = (): void => undefined;
  try {
    log(`[soak] seed ${options.seed}: starting a control plane in ${options.clusterDir}`);
    SoakControlPlane.stop(options.clusterDir); // a plane left by an interrupted soak would be reused with its objects
    const plane = SoakControlPlane.start(options.clusterDir);
    // The helpers (rehearsal-identity.ts, kube.ts) find the cluster through this file.
    process.env.REHEARSAL_TEST_CLUSTER_FILE = plane.clusterFile;
    const kubeconfigPath = await rehearsalKubeconfig(path.relative(path.join(repoRoot, 'test/.tmp'), path.join(options.outDir, 'rehearsal.kubeconfig')));
    fixture = await createSoakFixture(plane.admin, quiet);
    const violations = new Violations(options.seed, log);
    const crashes = new CrashWatch(() => replicas?.replicas.map((replica) => replica.logFile) ?? [], violations);
    log(`[soak] starting ${options.replicas} replicas`);
    replicas = await ReplicaSet.start(
      options.replicas,
      {
        kubeconfigPath,
        veleroNamespace: fixture.veleroNamespace,
        probeTargets: fixture.endpoints.targets,
        leaseName: 'rehearsal-soak',
        maxConcurrentRuns: options.maxConcurrentRuns,
        janitorIntervalSeconds: options.janitorIntervalSeconds,
        logDir: options.outDir,
        logLevel: options.logLevel,
      },
      { unexpectedExit: (replica, code, exitSignal) => crashes.exited(replica, code, exitSignal), log },
    );
    const set = replicas;
    const sim = fixture;

    view = new ClusterView(plane.admin, fixture.testNamespace);
    const ledger = new RunLedger(violations);
    view.tests.onChange((event, _key, current) => ledger.onTest(event, current));
    view.reports.onChange((event, _key, current, previous) => ledger.onReport(event, current, previous));
    await view.start();
    const driver = new RunDriver(plane.admin, fixture, view, set, driverRandom, options.sandboxTtl);
    await driver.createTests(options.tests);

    const actions: FaultActions = {
      async killLeader(downMs) {
        const { leader, all } = await set.leaders();
        if (!leader) throw new FaultNotPossible(all.length > 1 ? `${all.length} replicas say they lead` : 'no replica leads right now');
        return bounce(set, leader, downMs);
      },
      async killFollower(downMs, pick) {
        const { all } = await set.leaders();
        const followers = set.up().filter((replica) => !all.includes(replica));
        if (followers.length === 0) throw new FaultNotPossible('no follower is up');
        return bounce(set, followers[Math.floor(pick * followers.length)]!, downMs);
      },
      async pauseApiserver(pauseMs) {
        plane.pauseApiserver();
        try {
          await sleep(pauseMs);
        } finally {
          await plane.resumeApiserver();
        }
        return `kube-apiserver stopped (SIGSTOP) for ${pauseMs / 1000} s`;
      },
      async restartApiserver() {
        const from = Date.now();
        await plane.restartApiserver();
        return `kube-apiserver killed and ready again after ${Math.round((Date.now() - from) / 100) / 10} s`;
      },
      async restartVelero(downMs) {
        await sim.simulator.stop();
        await sleep(downMs);
        await sim.simulator.start();
        return `Velero simulator stopped for ${downMs / 1000} s`;
      },
    };
    const injector = new FaultInjector(
      faultRandom,
      actions,
      { kinds: options.kinds, minGapMs: options.minGapSeconds * 1000, maxGapMs: options.maxGapSeconds * 1000, warmUpMs: options.warmUpSeconds * 1000 },
      log,
    );
    const slots = new RunSlotWatch(set, options.maxConcurrentRuns, violations);
    const sandboxes = new SandboxWatch(plane.admin, options.janitorIntervalSeconds * 1000, (from, to) => injector.disruptedMs(from, to), violations);
    const reads = new ApiReadProbe(set, violations);
    for (const watch of [slots, sandboxes, reads, crashes]) watch.start();
    stopWatches = () => [slots, sandboxes, reads, crashes].forEach((watch) => watch.stop());
    // With who leads: a leader's working set is larger, so growth is judged per leading stretch.
    timers.push(setInterval(() => void set.leaders().then(({ all }) => set.sampleRss(new Set(all)), () => set.sampleRss()), 10_000));

    const soakStart = Date.now();
    driver.start();
    log(`[soak] ${options.tests} tests running; faults for ${options.minutes} min`);
    timers.push(
      setInterval(() => {
        const runs = ledger.figures();
        log(`[soak] ${Math.round((Date.now() - soakStart) / 1000)} s: ${runs.finished} runs finished, ${ledger.inFlight()} in flight, ` +
          `${injector.records.length} faults, ${violations.count()} violations`);
      }, 30_000),
    );
    await injector.run(soakStart + options.minutes * 60_000, signal);
    const soakEnd = Date.now();

    log('[soak] faults stopped; no more triggers; waiting for the last runs to finish');
    await driver.stop().catch((error: unknown) => log(`[soak] could not suspend the scheduled tests: ${(error as Error).message}`));
    const drainDeadline = Date.now() + options.drainTimeoutSeconds * 1000;
    const testsIdle = (): boolean => [...view!.tests.values()].every((test) => !test.run);
    while (!signal.aborted && Date.now() < drainDeadline && !(testsIdle() && ledger.inFlight() === 0)) await sleep(1000);
    const drainEnd = Date.now();
    if (options.settleSandboxes) {
      // Invariant 3 for the last runs too: wait until every sandbox left must be gone, then look.
      const deadline = await sandboxes.lastDeadline().catch(() => undefined);
      if (deadline !== undefined && deadline > Date.now()) {
        log(`[soak] waiting ${Math.round((deadline - Date.now()) / 1000)} s for the last sandboxes' expiry and a janitor pass`);
        while (!signal.aborted && Date.now() < deadline) await sleep(1000);
      }
    }

    log('[soak] final checks');
    stopWatches();
    crashes.scanLogs();
    ledger.checkComplete();
    const peakFromReports = slots.checkReports(view.reports.values());
    await slots.checkDrained();
    await sandboxes.check();
    let chains: SoakSummary['chains'];
    try {
      chains = await verifyChains(plane.admin, fixture.testNamespace, set.up()[0]!, violations);
    } catch (error) {
      chains = { error: (error as Error).message };
      violations.record('evidence-chain', `the chains could not be verified: ${(error as Error).message}`);
    }

    const runs = ledger.figures();
    const soakSeconds = (soakEnd - soakStart) / 1000;
    const byInvariant = Object.fromEntries(
      (['one-report-per-run', 'run-slots', 'sandbox-ttl', 'evidence-chain', 'api-reads', 'no-crash'] as InvariantName[]).map((name) => [name, violations.count(name)]),
    ) as Record<InvariantName, number>;
    return {
      seed: options.seed,
      minutesRequested: options.minutes,
      startedAt: startedAt.toISOString(),
      endedAt: new Date().toISOString(),
      soakSeconds: Math.round(soakSeconds),
      drainSeconds: Math.round((drainEnd - soakEnd) / 1000),
      setup: {
        replicas: options.replicas,
        tests: options.tests,
        maxConcurrentRuns: options.maxConcurrentRuns,
        sandboxTtl: options.sandboxTtl,
        janitorIntervalSeconds: options.janitorIntervalSeconds,
        faultGapSeconds: [options.minGapSeconds, options.maxGapSeconds],
        faultKinds: options.kinds,
      },
      runs: {
        ...runs,
        perHour: Math.round((runs.finished / Math.max(1, (drainEnd - soakStart) / 1000)) * 3600),
        withoutReportAtEnd: ledger.inFlight(),
        notPassed: ledger.notPassed(),
      },
      triggers: driver.figures,
      faults: { injected: injector.records.filter((record) => record.outcome === 'done').length, byKind: injector.counts(), records: injector.records },
      slots: { limit: options.maxConcurrentRuns, maxGauge: slots.maxObserved, peakFromReports, gaugeSamples: slots.samples, twoLeaderSamples: slots.twoLeaderSamples },
      sandboxes: { seen: sandboxes.seen.size, maxPresent: sandboxes.maxPresent },
      chains,
      apiReads: reads.figures(),
      unexpectedExits: crashes.unexpectedExits,
      rss: set.replicas.flatMap((replica) => rssFigures(replica.name, replica.rss) ?? []),
      rssWhileLeading: set.replicas.flatMap((replica) => leadingStretches(replica.name, replica.rss)),
      violations: violations.list,
      violationsByInvariant: byInvariant,
      notCovered: NOT_COVERED,
    };
  } finally {
    for (const timer of timers) clearInterval(timer);
    stopWatches();
    view?.stop();
    await replicas?.stopAll().catch((error: unknown) => log(`[soak] stopping the replicas: ${(error as Error).message}`));
    await fixture?.stop().catch((error: unknown) => log(`[soak] stopping the simulator: ${(error as Error).message}`));
    if (process.env.REHEARSAL_KEEP_CLUSTER) log(`[soak] REHEARSAL_KEEP_CLUSTER: the control plane in ${options.clusterDir} keeps running`);
    else {
      SoakControlPlane.stop(options.clusterDir);
      log('[soak] control plane stopped');
    }
  }
}

/** SIGKILL one replica, and start it again after `downMs`. */
async function bounce(set: ReplicaSet, replica: Replica, downMs: number): Promise<string> {
  const identity = replica.identity;
  await set.kill(replica);
  await sleep(downMs);
  await set.restart(replica);
  return `killed ${replica.name} (${identity}), back as ${replica.identity} after ${downMs / 1000} s down`;
}
