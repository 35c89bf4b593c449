// Pages of GET /api/v1/reports (decision 0011): `limit` reports at most, and an opaque `continue`
// token, as Kubernetes lists do. The token names the last report of the page by its place in the
// list's total order (completion time, then key), not by an offset, so a page boundary does not
// move when reports are added or deleted between requests: the next page starts right after it.
import type { IndexedRun } from '../../domain/read-models/report-index.js';
import { invalidRequest } from '../problem.js';

// At most 5,000 a page: reports.controller.ts states it (@maximum), and tsoa enforces it.
export const DEFAULT_REPORT_LIMIT = 500;

interface Cursor {
  completedAt: number;
  key: string;
}

export interface ReportPage {
  runs: readonly IndexedRun[];
  /** The token of the next page; absent on the last one. */
  next?: string;
}

export function encodeContinue(run: Cursor): string {
  return Buffer.from(JSON.stringify({ v: 1, t: run.completedAt, k: run.key }), 'utf8').toString('base64url');
}

function invalidToken(): never {
  throw invalidRequest([
    { field: 'continue', message: 'is not a token of this list; start again without continue' },
  ]);
}

export function decodeContinue(token: string): Cursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    return invalidToken();
  }
  const { v, t, k } = (parsed ?? {}) as { v?: unknown; t?: unknown; k?: unknown };
  if (v !== 1 || typeof t !== 'number' || !Number.isFinite(t) || typeof k !== 'string' || k === '') {
    return invalidToken();
  }
  return { completedAt: t, key: k };
}

/** True when `run` comes after `cursor` in a newest-first list. */
function after(run: IndexedRun, cursor: Cursor): boolean {
  if (run.completedAt !== cursor.completedAt) return run.completedAt < cursor.completedAt;
  return run.key < cursor.key;
}

/** One page of `newestFirst` (ordered by completion time, then key, both descending). */
export function pageOf(newestFirst: readonly IndexedRun[], limit: number, continueToken?: string): ReportPage {
  let start = 0;
  if (continueToken !== undefined) {
    const cursor = decodeContinue(continueToken);
    // Binary search: the list is sorted, and a 90-day list holds tens of thousands of runs.
    let low = 0;
    let high = newestFirst.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (after(newestFirst[middle]!, cursor)) high = middle;
      else low = middle + 1;
    }
    start = low;
  }
  const runs = newestFirst.slice(start, start + limit);
  const last = runs[runs.length - 1];
  return start + limit < newestFirst.length && last ? { runs, next: encodeContinue(last) } : { runs };
}
