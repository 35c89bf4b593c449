// npm run soak -- --minutes N --seed S [options]: the chaos soak of issue 31. Prints its figures and
// writes them to <out>/summary.json; exits 1 when an invariant was violated, 2 when the soak itself
// could not run or a fault could not be injected and repaired (then it did not test what it says).
// Not a Jest test: the short soak in `npm test` (test/integration/soak-short.test.ts) runs this
// command. Options: --help.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from '../helpers/cluster-info.js';
import { FAULT_KINDS, type FaultKind } from './fault-injector.js';
import { printSummary, writeSummary } from './report.js';
import { runSoak, type SoakOptions } from './soak.js';

const USAGE = `npm run soak -- --minutes N --seed S
  --minutes N          minutes of faults and runs (default 15); then the last runs drain
  --seed S             seeds the fault schedule and the trigger jitter (default: from the clock, printed)
  --replicas N         Rehearsal server processes on one Lease, 2 or 3 (default 3)
  --tests N            RestoreTests, driven by API triggers, annotations and cron in turn (default 6)
  --max-runs N         REHEARSAL_MAX_CONCURRENT_RUNS (default 3, below --tests so runs queue)
  --sandbox-ttl D      each test's sandbox ttl (default 2m)
  --janitor-seconds N  REHEARSAL_JANITOR_INTERVAL_SECONDS (default 5)
  --gap MIN-MAX        seconds from one fault's start to the next one's (default 40-75: about 55 an hour)
  --warm-up N          seconds before the first fault (default 30)
  --faults a,b         fault kinds (default all: ${FAULT_KINDS.join(', ')})
  --cluster-dir DIR    the soak's own control plane (default test/.tmp/soak-cluster)
  --out DIR            logs, kubeconfig and summary.json (default test/.tmp/soak)
  --log-level L        the replicas' log level (default info)
  --drain-seconds N    how long the last runs may take after the faults stop (default 300)
  --no-settle          do not wait, at the end, for the last sandboxes' expiry (up to ttl + 40 s)`;

function parseOptions(argv: string[]): SoakOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      minutes: { type: 'string', default: '15' },
      seed: { type: 'string' },
      replicas: { type: 'string', default: '3' },
      tests: { type: 'string', default: '6' },
      'max-runs': { type: 'string', default: '3' },
      'sandbox-ttl': { type: 'string', default: '2m' },
      'janitor-seconds': { type: 'string', default: '5' },
      gap: { type: 'string', default: '40-75' },
      'warm-up': { type: 'string', default: '30' },
      faults: { type: 'string', default: FAULT_KINDS.join(',') },
      'cluster-dir': { type: 'string', default: 'test/.tmp/soak-cluster' },
      out: { type: 'string', default: 'test/.tmp/soak' },
      'log-level': { type: 'string', default: 'info' },
      'drain-seconds': { type: 'string', default: '300' },
      settle: { type: 'boolean', default: true },
      help: { type: 'boolean', default: false },
    },
    strict: true,
    allowNegative: true,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const number = (name: string, text: string, min: number): number => {
    const value = Number(text);
    if (!Number.isFinite(value) || value < min) throw new Error(`--${name}: expected a number ≥ ${min}, got "${text}"`);
    return value;
  };
  const gap = /^(\d+)-(\d+)$/.exec(values.gap);
  if (!gap || Number(gap[1]) > Number(gap[2])) throw new Error(`--gap: expected MIN-MAX seconds, got "${values.gap}"`);
  const kinds = values.faults.split(',').map((kind) => kind.trim());
  const unknown = kinds.filter((kind) => !(FAULT_KINDS as readonly string[]).includes(kind));
  if (unknown.length > 0) throw new Error(`--faults: unknown kinds ${unknown.join(', ')} (known: ${FAULT_KINDS.join(', ')})`);
  const replicas = number('replicas', values.replicas, 2);
  if (replicas > 3) throw new Error('--replicas: 2 or 3');
  return {
    minutes: number('minutes', values.minutes, 0.5),
    seed: values.seed === undefined ? Date.now() % 1_000_000 : number('seed', values.seed, 0),
    replicas,
    tests: number('tests', values.tests, 1),
    maxConcurrentRuns: number('max-runs', values['max-runs'], 1),
    sandboxTtl: values['sandbox-ttl'],
    janitorIntervalSeconds: number('janitor-seconds', values['janitor-seconds'], 1),
    minGapSeconds: Number(gap[1]),
    maxGapSeconds: Number(gap[2]),
    warmUpSeconds: number('warm-up', values['warm-up'], 0),
    kinds: kinds as FaultKind[],
    clusterDir: path.resolve(repoRoot, values['cluster-dir']),
    outDir: path.resolve(repoRoot, values.out),
    logLevel: values['log-level'],
    drainTimeoutSeconds: number('drain-seconds', values['drain-seconds'], 10),
    settleSandboxes: values.settle,
  };
}

async function main(): Promise<number> {
  let options: SoakOptions;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    console.error(`error: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  // The harness must reach its teardown (the control plane and the servers are its children or
  // its leftovers): a stray rejection in one of its loops is printed, not fatal.
  process.on('unhandledRejection', (reason) => console.error(`[soak] harness: unhandled rejection: ${(reason as Error)?.stack ?? reason}`));
  const abort = new AbortController();
  // Ctrl-C ends the faults and the drain early; the control plane still goes down.
  process.once('SIGINT', () => abort.abort());
  process.once('SIGTERM', () => abort.abort());
  try {
    const summary = await runSoak(options, abort.signal);
    writeSummary(path.join(options.outDir, 'summary.json'), summary);
    printSummary(summary);
    console.log(`summary: ${path.join(options.outDir, 'summary.json')}; logs: ${options.outDir}`);
    const failedFaults = summary.faults.records.filter((record) => record.outcome === 'failed').length;
    if (summary.violations.length > 0) return 1;
    if (failedFaults > 0) {
      console.error(`error: ${failedFaults} faults could not be injected or repaired (see above): the soak did not test what it says`);
      return 2;
    }
    return 0;
  } catch (error) {
    console.error(`error: the soak could not run: ${(error as Error).stack ?? error}`);
    return 2;
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(2);
  },
);
