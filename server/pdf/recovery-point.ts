// The per-test PDF's account of the data a restore brings back (issue 27): the measured RPO beside
// the RTO (how old the newest restored data was at the restore request, against spec.sla.maxRPO)
// and the volumes whose data the latest run restored. Its own module because it answers a second
// question besides "how fast": "how much, and how fresh".
import type { VolumeRestoreReport } from '../domain/resources/resources.js';
import { binaryBytes } from '../../protocol/bytes.js';
import { plural, utcDate, utcDateTime } from './format.js';
import type { PdfWriter } from './layout/layout.js';
import { COLOR, type Column } from './layout/style.js';
import type { RunRpo, TestReportData } from './report-data.js';

/** "55m49s against a target of 30m (over target)"; without a target it says so. */
export function rpoText(rpo: RunRpo): string {
  if (!rpo.target) return `${rpo.measured} (no RPO target set)`;
  const verdict = rpo.withinSLA === undefined ? '' : rpo.withinSLA ? ' (within target)' : ' (over target)';
  return `${rpo.measured} against a target of ${rpo.target}${verdict}`;
}

/** The test definition's RPO line. */
export function rpoTargetText(maxRPO: string | undefined): string {
  return maxRPO
    ? `${maxRPO} (newest restored data at most this old at the restore request; measured by a freshness check)`
    : 'none set';
}

/** The period's RPO in a paragraph: the latest run's, how many runs measured one, over target, the worst. */
export function renderRecoveryPoint(writer: PdfWriter, data: TestReportData): void {
  const measured = data.runs.filter((run) => run.rpo !== undefined);
  const latest = data.runs[data.runs.length - 1];
  if (measured.length === 0) {
    writer.paragraph(
      'No run in the period measured an RPO: no freshness check (a sqlQuery, exec or file check with freshness: true) found the time of the newest restored data.' +
        (data.test.sla.maxRPO ? ` The RPO target is ${data.test.sla.maxRPO}.` : ''),
    );
    return;
  }
  const over = measured.filter((run) => run.rpo!.withinSLA === false).length;
  const worst = measured.reduce((a, b) => (b.rpo!.measuredSeconds >= a.rpo!.measuredSeconds ? b : a));
  const latestText = latest?.rpo
    ? `Latest measured RPO: ${rpoText(latest.rpo)}, from check ${latest.rpo.check} (newest restored data ${utcDateTime(latest.rpo.newestData)}).`
    : 'The latest run measured no RPO.';
  writer.paragraph(
    `${latestText} ${plural(measured.length, 'run')} of ${data.runs.length} measured an RPO; ` +
      `${over} over target; worst ${worst.rpo!.measured} (${worst.name}, ${utcDate(worst.startedAt)}). ` +
      'The RPO is the restore request time minus the newest data found in the restored copy: the data written after it is what this backup does not bring back.',
  );
}

/** The latest run's volume table (pod or claim, volume, method, phase, bytes, duration). */
export function renderVolumeTable(
  writer: PdfWriter,
  latestVolumes: NonNullable<TestReportData['latestVolumes']>,
): void {
  const columns: Column<VolumeRestoreReport>[] = [
    {
      header: 'Pod / claim',
      width: 1.8,
      cell: (v) => ({ text: v.pod ?? v.claim ?? '-', font: 'bold', sub: v.namespace }),
    },
    { header: 'Volume', width: 1, cell: (v) => v.volume ?? '-' },
    { header: 'Method', width: 1.1, cell: (v) => v.method },
    {
      header: 'Phase',
      width: 0.9,
      cell: (v) => ({
        text: v.phase,
        font: v.dataRestored ? 'regular' : 'bold',
        color: v.dataRestored ? COLOR.ink : '#9E2A24',
        sub: v.dataRestored ? undefined : (v.message ?? 'data not restored'),
      }),
    },
    {
      header: 'Bytes',
      width: 0.8,
      align: 'right',
      cell: (v) => (v.bytes === undefined ? '-' : binaryBytes(v.bytes)),
    },
    {
      header: 'Duration',
      width: 0.7,
      align: 'right',
      cell: (v) => (v.durationSeconds === undefined ? '-' : `${v.durationSeconds}s`),
    },
  ];
  writer.paragraph(
    `The volume data the latest run (${latestVolumes.run}) restored, as the backup tool reports it; ${latestVolumes.volumes.filter((v) => v.dataRestored).length} of ${latestVolumes.volumes.length} came back.`,
  );
  writer.table(columns, latestVolumes.volumes);
}
