// The side-by-side table: ours against Kymaros on each common endpoint (p50 / p99, requests
// answered), start to ready and resident memory, with the targets of issue 17 (p99 at least 3×
// better on every common endpoint, at most half the memory) and the endpoints Kymaros lacks.
import type { LoadResult } from '../load-generator.js';
import type { ResidentMemory } from '../process-stats.js';
import type { EndpointOutcome } from './measure-kymaros.js';

export const P99_FACTOR_TARGET = 3;
export const RSS_SHARE_TARGET = 0.5;

/** What Rehearsal serves and Kymaros v0.6.9 has no route for (internal/api/server.go). */
export const KYMAROS_LACKS = [
  '/api/v1/compliance (framework evidence over a period)',
  '/api/v1/license',
  'PDFs (/api/v1/compliance/pdf, /api/restore-tests/{name}/report.pdf)',
  'signed evidence / chain verification',
];

export interface OursSide {
  endpoints: (LoadResult & { loadAverage1m: number })[];
  startToReadySeconds: number;
  rssAtReady: ResidentMemory;
  rssAfterLoad: ResidentMemory;
}

export interface KymarosSide {
  endpoints: EndpointOutcome[];
  startToReadySeconds: number | null;
  rssAtReady?: ResidentMemory;
  rssAfterLoad?: ResidentMemory;
  exit: string | null;
}

export interface ComparisonRow {
  path: string;
  ours: string;
  kymaros: string;
  p99Factor: number | null;
  pass: boolean;
}

function cell(result: LoadResult | undefined): string {
  if (!result) return '–';
  if (!result.ok) return `– (0/${result.sent})`;
  return `${result.latencyMs.p50.toFixed(1)} / ${result.latencyMs.p99.toFixed(1)} (${result.ok}/${result.sent})`;
}

/** p99 over the requests answered; a request not answered counts as "worse than any" (no factor). */
export function compareEndpoints(ours: OursSide, kymaros: KymarosSide): ComparisonRow[] {
  return kymaros.endpoints.map((theirs) => {
    const mine = ours.endpoints.find((result) => result.path === theirs.path);
    const oursOk = !!mine && mine.failed === 0;
    const theirsOk = !!theirs.result && theirs.result.failed === 0;
    const factor =
      mine && theirs.result && oursOk && theirsOk
        ? Math.round((theirs.result.latencyMs.p99 / Math.max(mine.latencyMs.p99, 0.01)) * 100) / 100
        : null;
    return {
      path: theirs.path,
      ours: cell(mine),
      kymaros: theirs.collapse ? `${cell(theirs.result)} COLLAPSE: ${theirs.collapse}` : cell(theirs.result),
      p99Factor: factor,
      // A collapse of theirs with every request of ours answered is a pass (∞ factor).
      pass: oursOk && (factor === null ? !theirsOk : factor >= P99_FACTOR_TARGET),
    };
  });
}

export function printComparison(ours: OursSide, kymaros: KymarosSide, rows: ComparisonRow[]): boolean {
  const header = [
    'GET (same open loop)',
    'Rehearsal p50 / p99 ms (ok/sent)',
    'Kymaros p50 / p99 ms (ok/sent)',
    'p99 ×',
    `≥${P99_FACTOR_TARGET}×`,
  ];
  const body = rows.map((row) => [
    row.path,
    row.ours,
    row.kymaros,
    row.p99Factor === null ? '∞/–' : `${row.p99Factor}`,
    row.pass ? 'PASS' : 'FAIL',
  ]);
  // Peak over every Kymaros process of the run (a collapse restarts it for the next endpoint).
  const theirPeak = Math.max(
    ...kymaros.endpoints.map((endpoint) => endpoint.rssAfter?.vmHwmMb ?? 0),
    kymaros.rssAfterLoad?.vmHwmMb ?? 0,
  );
  const atReady = kymaros.rssAtReady?.vmRssMb;
  const rssPass =
    atReady !== undefined &&
    ours.rssAtReady.vmRssMb <= atReady * RSS_SHARE_TARGET &&
    ours.rssAfterLoad.vmHwmMb <= theirPeak * RSS_SHARE_TARGET;
  body.push([
    'start → ready (s)',
    `${ours.startToReadySeconds}`,
    kymaros.startToReadySeconds === null ? `never (${kymaros.exit})` : `${kymaros.startToReadySeconds}`,
    '',
    '',
  ]);
  const share = (mine: number, theirs: number | undefined): string =>
    theirs ? `${Math.round((mine / theirs) * 100) / 100}` : '–';
  body.push([
    'VmRSS at ready / peak under load MB',
    `${ours.rssAtReady.vmRssMb} / ${ours.rssAfterLoad.vmHwmMb}`,
    `${atReady ?? '–'} / ${theirPeak || '–'}`,
    `${share(ours.rssAtReady.vmRssMb, atReady)} / ${share(ours.rssAfterLoad.vmHwmMb, theirPeak)}`,
    `≤½ both: ${rssPass ? 'PASS' : 'FAIL'}`,
  ]);
  for (const missing of KYMAROS_LACKS) body.push([missing, 'served', 'no such endpoint', '', '']);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of body) console.log(line(row));
  return rows.every((row) => row.pass) && rssPass;
}
