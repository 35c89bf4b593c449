// Display helpers: dates, percentages, result colours, durations.
import type { components } from './api.js';

export type TestResponse = components['schemas']['TestResponse'];
export type Report = components['schemas']['RestoreReportResource'];

export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '—';
  return d.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
}

export function day(iso: string): string {
  return iso.slice(0, 10);
}

export function percent(ratio: number): string {
  return `${Math.round(ratio * 1000) / 10}%`;
}

/** Seconds of a `1h2m3s` duration (0 when empty or malformed). */
export function seconds(duration: string | undefined): number {
  if (!duration) return 0;
  let total = 0;
  for (const [, value, unit] of duration.matchAll(/(\d+(?:\.\d+)?)(h|m|s)/g)) {
    total += Number(value) * (unit === 'h' ? 3600 : unit === 'm' ? 60 : 1);
  }
  return total;
}

export function duration(totalSeconds: number): string {
  const s = Math.round(totalSeconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${rest || (!h && !m) ? `${rest}s` : ''}`;
}

export function resultClass(result: string | undefined): string {
  return result === 'pass' ? 'ok' : result === 'partial' ? 'warn' : result === 'fail' ? 'bad' : 'muted';
}

export function scoreClass(score: number): string {
  return score >= 90 ? 'ok' : score >= 70 ? 'warn' : 'bad';
}

export const LEVEL_NAMES: Record<string, string> = {
  restoreIntegrity: 'Restore integrity',
  completeness: 'Completeness',
  podStartup: 'Pod startup',
  healthChecks: 'Health checks',
  crossNamespace: 'Cross-namespace dependencies',
  rtoWithinSLA: 'RTO within SLA',
};
