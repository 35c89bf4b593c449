// The complete run population of a compliance PDF as a second embedded file (the guide's
// "complete population of runs, failures included" and "appendix: run history"): a gzip'd CSV,
// one line per run, written in slices so 90,000 runs never sit in memory as one string. Its
// SHA-256 and row count are part of the signed evidence (ComplianceReportData.runsFile), so the
// attestation covers it; the pages only describe it. Columns are only ever appended (the RPO ones
// came after failureReason), so a reader that picks columns by position keeps working.
import { once } from 'node:events';
import { createHash } from 'node:crypto';
import { createGzip } from 'node:zlib';
import type { RunResult } from '../domain/resources/resources.js';

export const RUNS_FILE_NAME = 'rehearsal-runs.csv.gz';

export interface RunsFileInfo {
  name: string;
  /** "sha256:" + hex of the gzip'd bytes as embedded. */
  digest: string;
  rows: number;
}

/** One line of the file: one RestoreReport of the period. */
export interface RunsFileRow {
  /** RestoreReport name. */
  report: string;
  testNamespace: string;
  test: string;
  completedAt: string;
  result: RunResult;
  score: number;
  rtoSeconds: number | null;
  rtoTarget: string | null;
  rtoVerdict: string;
  /** Absent: signatures were not checked (the column stays empty). */
  evidenceVerified?: boolean;
  /** The report's spec.evidence.digest, which ties the line to the signed report; absent: unsigned. */
  evidenceDigest?: string;
  failureReason?: string;
  /** The measured RPO in seconds (spec.rpo); null: no freshness check found a time. */
  rpoSeconds: number | null;
  /** The RPO target the run was measured against, in seconds; null: none recorded (none set, or nothing measured). */
  rpoTargetSeconds: number | null;
  /** met, breached, no-target or unmeasured (domain/read-models/run-facts.ts rpoVerdict). */
  rpoVerdict: string;
}

const HEADER = [
  'report',
  'testNamespace',
  'test',
  'completedAt',
  'result',
  'score',
  'rtoSeconds',
  'rtoTarget',
  'rtoVerdict',
  'evidenceVerified',
  'evidenceDigest',
  'failureReason',
  'rpoSeconds',
  'rpoTargetSeconds',
  'rpoVerdict',
];

/** Lines per write: bounds the string held at once. */
const SLICE = 500;

function field(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function line(run: RunsFileRow): string {
  return `${[
    run.report,
    run.testNamespace,
    run.test,
    run.completedAt,
    run.result,
    run.score,
    run.rtoSeconds,
    run.rtoTarget,
    run.rtoVerdict,
    run.evidenceVerified,
    run.evidenceDigest,
    run.failureReason,
    run.rpoSeconds,
    run.rpoTargetSeconds,
    run.rpoVerdict,
  ]
    .map(field)
    .join(',')}\n`;
}

/** Builds the gzip'd CSV of the runs (oldest first, as given) and its digest. */
export async function buildRunsFile(runs: Iterable<RunsFileRow>): Promise<{ bytes: Buffer; info: RunsFileInfo }> {
  const gzip = createGzip({ level: 9 });
  const chunks: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = once(gzip, 'end');
  let rows = 0;
  let slice: string[] = [`${HEADER.join(',')}\n`];
  for (const run of runs) {
    slice.push(line(run));
    rows += 1;
    if (slice.length >= SLICE) {
      if (!gzip.write(slice.join(''))) await once(gzip, 'drain');
      slice = [];
    }
  }
  gzip.end(slice.join(''));
  await ended;
  const bytes = Buffer.concat(chunks);
  return {
    bytes,
    info: {
      name: RUNS_FILE_NAME,
      digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
      rows,
    },
  };
}
