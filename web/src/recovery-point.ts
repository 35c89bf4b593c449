// What the test page shows of the data a run brought back (issue 27): the measured RPO against the
// test's maxRPO, and one row per restored volume. Plain view models, so the unit tests read exactly
// what components/recovery-point.tsx prints without a browser.
import { binaryBytes } from '../../protocol/bytes.js';
import { dateTime, type Report } from './format.js';

export interface RpoView {
  /** "55m49s". */
  measured: string;
  /** "target 30m: over target", "target 1h: within target", or "no RPO target set". */
  verdict: string;
  tone: 'ok' | 'bad' | 'muted';
  /** Which freshness check measured it and the newest data it found. */
  source: string;
}

/** The report's measured RPO; undefined when no freshness check measured one. */
export function rpoView(report: Report): RpoView | undefined {
  const rpo = report.spec.rpo;
  if (!rpo) return undefined;
  const source = `Measured by check ${rpo.check}: the newest restored data is from ${dateTime(rpo.newestData)}.`;
  if (!rpo.target) return { measured: rpo.measured, verdict: 'no RPO target set', tone: 'muted', source };
  if (rpo.withinSLA === undefined)
    return { measured: rpo.measured, verdict: `target ${rpo.target}`, tone: 'muted', source };
  return {
    measured: rpo.measured,
    verdict: `target ${rpo.target}: ${rpo.withinSLA ? 'within target' : 'over target'}`,
    tone: rpo.withinSLA ? 'ok' : 'bad',
    source,
  };
}

export interface VolumeRow {
  key: string;
  /** The restored Pod (file-system restores) or claim (CSI data mover), in its sandbox namespace. */
  podOrClaim: string;
  volume: string;
  method: string;
  phase: string;
  bytes: string;
  duration: string;
  dataRestored: boolean;
  /** The tool's reason when the data did not come back. */
  message: string;
}

/** Bytes in binary units, as the plugin and the PDF print them: "512 B", "24.5 MiB" (protocol/bytes.ts). */
export const byteSize = (bytes: number): string => binaryBytes(bytes);

/** One row per volume the report lists (failed ones first, as the report keeps them). */
export function volumeRows(report: Report): VolumeRow[] {
  return (report.spec.volumes ?? []).map((v) => {
    const podOrClaim = `${v.namespace}/${v.pod ?? v.claim ?? '—'}`;
    return {
      key: `${podOrClaim} ${v.volume ?? ''} ${v.method}`,
      podOrClaim,
      volume: v.volume ?? '—',
      method: v.method,
      phase: v.phase,
      bytes: v.bytes === undefined ? '—' : byteSize(v.bytes),
      duration: v.durationSeconds === undefined ? '—' : `${v.durationSeconds}s`,
      dataRestored: v.dataRestored,
      message: v.message ?? '',
    };
  });
}
