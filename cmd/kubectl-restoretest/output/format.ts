// Cell formatting shared by the printers: kubectl's relative ages, empty values, percentages and
// the only colour the plugin uses (result words on a terminal).

export const NONE = '<none>';

/**
 * kubectl's HumanDuration (k8s.io/apimachinery/pkg/util/duration): 45s, 5m30s, 4h12m, 3d4h, 2y30d.
 * Up to 2 s in the future still counts as now (clock skew), beyond that it is "<invalid>".
 */
export function humanDuration(milliseconds: number): string {
  const seconds = Math.trunc(milliseconds / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.trunc(hours / 24) % 365;
    const years = Math.trunc(hours / 24 / 365);
    return days === 0 ? `${years}y` : `${years}y${days}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** How long ago an RFC 3339 instant was ("5m"), or <none> when empty/unparseable. */
export function age(timestamp: string | undefined, now: Date): string {
  if (!timestamp) return NONE;
  const at = Date.parse(timestamp);
  if (Number.isNaN(at)) return NONE;
  return humanDuration(now.getTime() - at);
}

/** How long ago a run that has not started was due ("overdue 3h"). */
export function overdue(timestamp: string, now: Date): string {
  const at = Date.parse(timestamp);
  return Number.isNaN(at) ? 'overdue' : `overdue ${humanDuration(now.getTime() - at)}`;
}

/** How far ahead an instant is ("in 4h"); "now" once it is due. */
export function until(timestamp: string | undefined, now: Date): string {
  if (!timestamp) return NONE;
  const at = Date.parse(timestamp);
  if (Number.isNaN(at)) return NONE;
  const ahead = at - now.getTime();
  return ahead < 1000 ? 'now' : `in ${humanDuration(ahead)}`;
}

export function orNone(value: string | undefined | null): string {
  return value === undefined || value === null || value === '' ? NONE : value;
}

/** A 0..1 fraction as a percentage with one decimal: 0.953 → 95.3%. */
export function percent(fraction: number): string {
  return `${(Math.round(fraction * 1000) / 10).toFixed(1)}%`;
}

const RESULT_COLORS: Readonly<Record<string, string>> = {
  pass: '\u001b[32m',
  satisfied: '\u001b[32m',
  partial: '\u001b[33m',
  at_risk: '\u001b[33m',
  fail: '\u001b[31m',
  error: '\u001b[31m',
  not_tested: '\u001b[31m',
};
const RESET = '\u001b[0m';

/** Paints a result/status word (pass green, partial yellow, fail red) when colour is on. */
export function paintResult(word: string, color: boolean): string {
  const code = RESULT_COLORS[word];
  return color && code ? `${code}${word}${RESET}` : word;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

/** Visible width of a cell (ANSI colour codes take no room). */
export function visibleLength(text: string): number {
  return text.replace(ANSI, '').length;
}

