// The soak's figures: one JSON document (<out>/summary.json, what the short soak in `npm test`
// asserts on) and the same as plain tables on stdout.
import { writeFileSync } from 'node:fs';
import type { ChainFigures } from './invariants/evidence-chains.js';
import type { InvariantName, Violation } from './invariants/violations.js';
import type { FaultKind, FaultRecord } from './fault-injector.js';
import type { DriverFigures } from './run-driver.js';
import type { RssSample } from './replicas.js';

export interface RssFigures {
  replica: string;
  incarnations: number;
  /** Of the longest-lived incarnation: the first sample after its warm-up, the last, the highest. */
  firstAfterWarmUpMiB: number;
  lastMiB: number;
  maxMiB: number;
  minutesSampled: number;
  /** The same series, one sample a minute (MiB): growth per run shows here. */
  perMinuteMiB: number[];
}

/**
 * One stretch of a replica's life spent leading (consecutive samples that led), at least
 * MIN_STRETCH_MS long: the RSS a minute after it began (the engine's caches and informers have
 * filled) and at its end. Growth per run shows as MiB per 10 minutes of leading.
 */
export interface LeadingStretch {
  replica: string;
  incarnation: number;
  minutes: number;
  fromMiB: number;
  toMiB: number;
  mibPer10Minutes: number;
}

export interface SoakSummary {
  seed: number;
  minutesRequested: number;
  startedAt: string;
  endedAt: string;
  /** From the first trigger until the faults stopped. */
  soakSeconds: number;
  /** From then until the last run had its report. */
  drainSeconds: number;
  setup: {
    replicas: number;
    tests: number;
    maxConcurrentRuns: number;
    sandboxTtl: string;
    janitorIntervalSeconds: number;
    faultGapSeconds: [number, number];
    faultKinds: readonly FaultKind[];
  };
  runs: {
    started: number;
    finished: number;
    reports: number;
    perHour: number;
    byResult: Record<string, number>;
    byTrigger: Record<string, number>;
    withoutReportAtEnd: number;
    /** namespace/test/run result: why, for every run that did not pass. */
    notPassed: string[];
  };
  triggers: DriverFigures;
  faults: { injected: number; byKind: Record<FaultKind, { done: number; skipped: number; failed: number }>; records: FaultRecord[] };
  slots: { limit: number; maxGauge: number; peakFromReports: number; gaugeSamples: number; twoLeaderSamples: number };
  sandboxes: { seen: number; maxPresent: number };
  chains: ChainFigures | { error: string };
  apiReads: { ok: number; unavailable503: number; bad: number; skippedKilled: number; p50Ms: number; p99Ms: number; maxMs: number };
  unexpectedExits: number;
  rss: RssFigures[];
  rssWhileLeading: LeadingStretch[];
  violations: Violation[];
  violationsByInvariant: Record<InvariantName, number>;
  /** What issue 31 lists that this soak neither injects nor checks. */
  notCovered: string[];
}

const MiB = 1024 * 1024;

/** RSS of the longest series of samples: the first after a warm-up (a third of it, at most 2 min), the last, the highest. */
export function rssFigures(replica: string, incarnations: RssSample[][]): RssFigures | undefined {
  const series = [...incarnations].sort((a, b) => b.length - a.length)[0];
  if (!series || series.length === 0) return undefined;
  const span = series.at(-1)!.at - series[0]!.at;
  const warmUpEnds = series[0]!.at + Math.min(120_000, span / 3);
  const first = series.find((sample) => sample.at >= warmUpEnds) ?? series[0]!;
  const mib = (bytes: number): number => Math.round((bytes / MiB) * 10) / 10;
  const minuteOf = (sample: RssSample): number => Math.floor((sample.at - series[0]!.at) / 60_000);
  return {
    replica,
    incarnations: incarnations.length,
    firstAfterWarmUpMiB: mib(first.bytes),
    lastMiB: mib(series.at(-1)!.bytes),
    maxMiB: mib(Math.max(...series.map((sample) => sample.bytes))),
    minutesSampled: Math.round((span / 60_000) * 10) / 10,
    perMinuteMiB: series
      .filter((sample, index) => index === 0 || minuteOf(sample) !== minuteOf(series[index - 1]!))
      .map((sample) => mib(sample.bytes)),
  };
}

const MIN_STRETCH_MS = 5 * 60_000;
const LEADER_WARM_UP_MS = 60_000;

/** The leading stretches of every incarnation of one replica (see LeadingStretch). */
export function leadingStretches(replica: string, incarnations: RssSample[][]): LeadingStretch[] {
  const stretches: LeadingStretch[] = [];
  const mib = (bytes: number): number => Math.round((bytes / MiB) * 10) / 10;
  incarnations.forEach((series, index) => {
    let start = 0;
    while (start < series.length) {
      if (!series[start]!.leading) {
        start += 1;
        continue;
      }
      let end = start;
      while (end + 1 < series.length && series[end + 1]!.leading) end += 1;
      const first = series[start]!;
      const last = series[end]!;
      const warm = series.slice(start, end + 1).find((sample) => sample.at - first.at >= LEADER_WARM_UP_MS);
      if (last.at - first.at >= MIN_STRETCH_MS && warm && last.at > warm.at) {
        const minutes = (last.at - warm.at) / 60_000;
        stretches.push({
          replica,
          incarnation: index + 1,
          minutes: Math.round(((last.at - first.at) / 60_000) * 10) / 10,
          fromMiB: mib(warm.bytes),
          toMiB: mib(last.bytes),
          mibPer10Minutes: Math.round(((last.bytes - warm.bytes) / MiB / minutes) * 100) / 10,
        });
      }
      start = end + 1;
    }
  });
  return stretches;
}

export function writeSummary(file: string, summary: SoakSummary): void {
  writeFileSync(file, `${JSON.stringify(summary, null, 2)}\n`);
}

function table(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((row) => row.map(String))];
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => row[column]!.length)));
  return cells.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd()).join('\n');
}

export function printSummary(summary: SoakSummary, print: (line: string) => void = console.log): void {
  const { runs, faults, slots, apiReads } = summary;
  print('');
  print(`soak: seed ${summary.seed}, ${Math.round(summary.soakSeconds / 6) / 10} min of faults + ${Math.round(summary.drainSeconds)} s drain, ` +
    `${summary.setup.replicas} replicas, ${summary.setup.tests} tests, ${slots.limit} run slots (${summary.startedAt} → ${summary.endedAt})`);
  print('');
  print(table(['fault', 'injected', 'skipped', 'failed'], Object.entries(faults.byKind).map(([kind, count]) => [kind, count.done, count.skipped, count.failed])));
  print('');
  print(table(['runs', 'value'], [
    ['started', runs.started],
    ['finished (with a report)', runs.finished],
    ['reports', runs.reports],
    ['per hour', runs.perHour],
    ['by result', Object.entries(runs.byResult).map(([result, count]) => `${result} ${count}`).join(', ')],
    ['by trigger', Object.entries(runs.byTrigger).map(([trigger, count]) => `${trigger} ${count}`).join(', ')],
    ['triggers sent / 409 / failed', `${summary.triggers.triggersSent} / ${summary.triggers.triggersRefused409} / ${summary.triggers.triggersFailed}`],
    ['run slots: max gauge / peak from reports', `${slots.maxGauge} / ${slots.peakFromReports} (limit ${slots.limit})`],
    ['samples with two replicas leading', slots.twoLeaderSamples],
    ['sandboxes seen / most at once', `${summary.sandboxes.seen} / ${summary.sandboxes.maxPresent}`],
    ['chains', 'error' in summary.chains ? summary.chains.error : `${summary.chains.verified}/${summary.chains.reports} reports of ${summary.chains.tests} tests verify (${summary.chains.keys} keys)`],
    ['API reads: 200 / 503 / bad', `${apiReads.ok} / ${apiReads.unavailable503} / ${apiReads.bad} (p50 ${apiReads.p50Ms} ms, p99 ${apiReads.p99Ms} ms, max ${apiReads.maxMs} ms)`],
    ['unexpected exits', summary.unexpectedExits],
  ]));
  for (const line of runs.notPassed) print(`  not passed: ${line}`);
  print('');
  print(table(['replica', 'incarnations', 'RSS first after warm-up', 'RSS last', 'RSS max', 'minutes'], summary.rss.map((r) => [r.replica, r.incarnations, `${r.firstAfterWarmUpMiB} MiB`, `${r.lastMiB} MiB`, `${r.maxMiB} MiB`, r.minutesSampled])));
  if (summary.rssWhileLeading.length > 0) {
    print('');
    print(table(['leading stretch (>= 5 min)', 'minutes', 'RSS after 1 min', 'RSS at end', 'MiB per 10 min'], summary.rssWhileLeading.map((s) => [`${s.replica} #${s.incarnation}`, s.minutes, `${s.fromMiB} MiB`, `${s.toMiB} MiB`, s.mibPer10Minutes])));
  }
  print('');
  print(table(['invariant', 'violations'], Object.entries(summary.violationsByInvariant).map(([name, count]) => [name, count])));
  for (const violation of summary.violations) print(`  ${violation.at} ${violation.invariant}: ${violation.what}`);
  print('');
  print(`violations: ${summary.violations.length} (seed ${summary.seed})`);
}
