// The measured RPO (issue 27): how much data a restore from this backup would lose, measured from
// the restored data itself. A freshness check (sqlQuery, exec or file with `freshness: true`) returns the
// time of the newest data in the restored copy; the RPO is the restore request time minus it (the
// data written since then is what the restore does not bring back). Against spec.sla.maxRPO.
// Pure.
import { formatDuration, parseDuration } from '../common/duration.js';
import type { CheckResult, RestoreTest } from '../resources/resources.js';

/**
 * The newest-data value a freshness check returned, as a time: RFC 3339 / ISO 8601, PostgreSQL's
 * text form of timestamptz ("2026-11-28 14:05:03.123456+00"), MySQL's DATETIME ("2026-11-28
 * 14:05:03", read as UTC), or a Unix time in seconds ("1795874703.5"). Undefined when it is none
 * of those.
 */
export function parseDataTimestamp(value: string): Date | undefined {
  const text = value.trim();
  if (/^\d{9,11}(\.\d+)?$/.test(text)) return new Date(Number(text) * 1000);
  const match = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i.exec(text);
  if (!match) return undefined;
  const [, date, time, fraction = '', zone = 'Z'] = match;
  const offset = /^[+-]\d{2}$/.test(zone) ? `${zone}:00` : /^[+-]\d{4}$/.test(zone) ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone.toUpperCase();
  const parsed = new Date(`${date}T${time}${fraction.slice(0, 4)}${offset}`);
  return Number.isNaN(parsed.getTime()) ? undefined : parsed;
}

export interface RpoReport {
  /** The freshness check that measured it. */
  check: string;
  /** The newest data in the restored copy, as the check found it. */
  newestData: string;
  measured: string;
  measuredSeconds: number;
  target?: string;
  withinSLA?: boolean;
}

/**
 * The run's RPO from its passing freshness checks: the oldest newest-data time among them (with
 * several applications restored, the one that loses the most decides). Undefined without a
 * freshness check that found a time, or without a restore request time.
 */
export function measureRpo(test: RestoreTest, restoreRequestedAt: string | undefined, checks: readonly CheckResult[]): RpoReport | undefined {
  if (!restoreRequestedAt) return undefined;
  const found = checks
    .filter((check) => check.newestData !== undefined)
    .map((check) => ({ check: check.name, newestData: check.newestData!, at: Date.parse(check.newestData!) }))
    .filter((entry) => Number.isFinite(entry.at))
    .sort((a, b) => a.at - b.at)[0];
  if (!found) return undefined;
  const seconds = Math.max(0, Math.floor((Date.parse(restoreRequestedAt) - found.at) / 1000));
  const target = test.spec.sla?.maxRPO;
  const targetSeconds = target ? (parseDuration(target) ?? undefined) : undefined;
  return {
    check: found.check,
    newestData: found.newestData,
    measured: formatDuration(seconds),
    measuredSeconds: seconds,
    ...(target ? { target } : {}),
    ...(targetSeconds !== undefined ? { withinSLA: seconds <= targetSeconds } : {}),
  };
}
