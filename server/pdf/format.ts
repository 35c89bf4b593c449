// Text formatting for the PDF reports. Everything here is deterministic (no clock, no locale):
// the same input always yields the same characters, which keeps the PDFs byte-reproducible.

/** Characters the built-in Helvetica (WinAnsiEncoding) can draw beyond printable ASCII. */
const WIN_ANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');

const REPLACEMENTS: Record<string, string> = {
  '≤': '<=',
  '≥': '>=',
  '→': '->',
  '←': '<-',
  '↔': '<->',
  '−': '-',
  '‐': '-',
  '‑': '-',
  '‒': '-',
  '\u00a0': ' ',
  '\u2009': ' ',
  '\u202f': ' ',
  '✓': 'yes',
  '✗': 'no',
  '…': '...',
  '×': 'x',
};

/**
 * Makes a string drawable with the standard PDF fonts: maps common symbols to ASCII, keeps Latin-1
 * and the WinAnsi extras, replaces anything else with "?" (never silently drops it).
 */
export function pdfSafe(text: string): string {
  let out = '';
  for (const ch of text) {
    const replacement = REPLACEMENTS[ch];
    if (replacement !== undefined) {
      out += replacement;
      continue;
    }
    const code = ch.codePointAt(0)!;
    if (
      ch === '\n' ||
      (code >= 0x20 && code <= 0x7e) ||
      (code >= 0xa1 && code <= 0xff) ||
      WIN_ANSI_EXTRA.has(ch)
    ) {
      out += ch;
    } else if (code < 0x20 || (code >= 0x7f && code <= 0xa0)) {
      out += ' ';
    } else {
      out += '?';
    }
  }
  return out;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

function toDate(ts: string | Date): Date | undefined {
  const d = typeof ts === 'string' ? new Date(ts) : ts;
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/** "2026-02-11 02:00:05 UTC". */
export function utcDateTime(ts: string | Date | undefined, withZone = true): string {
  if (ts === undefined || ts === '') return '-';
  const d = toDate(ts);
  if (!d) return String(ts);
  const s = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  return withZone ? `${s} UTC` : s;
}

/** "2026-02-11 02:00" (tables, where the column header says UTC). */
export function utcShort(ts: string | undefined): string {
  if (!ts) return '-';
  const d = toDate(ts);
  if (!d) return ts;
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
}

/** "2026-02-11". */
export function utcDate(ts: string | undefined): string {
  if (!ts) return '-';
  const d = toDate(ts);
  if (!d) return ts;
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

/** Seconds → "11m40s" / "1h2m" / "45s" (the API's duration style). */
export function durationText(seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds)) return '-';
  let s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  let out = '';
  if (h > 0) out += `${h}h`;
  if (m > 0) out += `${m}m`;
  if (s > 0 || out === '') out += `${s}s`;
  return out;
}


/** "11m35s" / "1h" / "90s" → seconds; undefined when it is not a duration string. */
export function parseDuration(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const match = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s)?$/.exec(text.trim());
  if (!match || text.trim() === '') return undefined;
  return Number(match[1] ?? 0) * 3600 + Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0);
}

/** 0.9781 → "97.8%". */
export function percent(fraction: number | undefined, digits = 1): string {
  if (fraction === undefined || !Number.isFinite(fraction)) return '-';
  return `${(fraction * 100).toFixed(digits)}%`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** "sha256:3f9a1c2b7d04…" for tables; the full value is in the appendix and the embedded JSON. */
export function shortDigest(digest: string | undefined, hexChars = 12): string {
  if (!digest) return 'unsigned';
  const hex = digest.startsWith('sha256:') ? digest.slice(7) : digest;
  return `${hex.slice(0, hexChars)}...`;
}

/** Splits a long token (signature, digest) into lines of `width` characters. */
export function chunk(text: string, width: number): string {
  const parts: string[] = [];
  for (let i = 0; i < text.length; i += width) parts.push(text.slice(i, i + width));
  return parts.join('\n');
}

export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Nearest-rank percentile (p in 0..100). */
export function percentile(values: readonly number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}
