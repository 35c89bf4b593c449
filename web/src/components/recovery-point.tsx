// The latest run's RPO against its target and the volumes whose data came back (issue 27), under
// the RTO on the test page. The words come from recovery-point.ts (unit-tested).
import type { Report } from '../format.js';
import { rpoView, volumeRows } from '../recovery-point.js';
import { Badge } from './ui.js';

export function RecoveryPoint({ report }: { report: Report }) {
  const rpo = rpoView(report);
  const volumes = volumeRows(report);
  return (
    <>
      {rpo ? (
        <div data-testid="rpo">
          <h3>RPO {rpo.measured}</h3>
          <p class={rpo.tone}>{rpo.verdict}</p>
          <p class="muted">{rpo.source}</p>
        </div>
      ) : null}
      {volumes.length > 0 ? (
        <>
          <h3>Volumes restored</h3>
          <div class="table-wrap">
            <table data-testid="volumes">
              <thead>
                <tr>
                  <th>Pod / claim</th>
                  <th>Volume</th>
                  <th>Method</th>
                  <th>Phase</th>
                  <th>Bytes</th>
                  <th>Duration</th>
                </tr>
              </thead>
              <tbody>
                {volumes.map((v) => (
                  <tr key={v.key}>
                    <td>{v.podOrClaim}</td>
                    <td>{v.volume}</td>
                    <td>{v.method}</td>
                    <td>
                      <Badge tone={v.dataRestored ? 'ok' : 'bad'}>{v.phase}</Badge>
                      {v.message ? <span class="message"> {v.message}</span> : null}
                    </td>
                    <td>{v.bytes}</td>
                    <td>{v.duration}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      ) : null}
    </>
  );
}
