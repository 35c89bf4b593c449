// Alerts (failed runs, score regressions, SLA breaches) and upcoming runs (overdue ones first, marked).
import { useState } from 'preact/hooks';
import { api, unwrap } from '../api.js';
import { Async, Badge, PageHeader, Segmented } from '../components/ui.js';
import { dateTime, resultClass } from '../format.js';
import { href, useLoad } from '../hooks.js';

const HOURS = [24, 72, 168, 720] as const;

export function AlertsPage() {
  const [hours, setHours] = useState<(typeof HOURS)[number]>(168);
  const alerts = useLoad(
    async () => unwrap(await api.GET('/api/v1/alerts', { params: { query: { hours } } })),
    [hours],
  );
  return (
    <>
      <PageHeader title="Alerts">
        <Segmented
          label="Alerts from the last"
          options={HOURS}
          value={hours}
          onChange={setHours}
          format={(h) => (h < 168 ? `${h} h` : `${h / 24} days`)}
        />
      </PageHeader>
      <section class="panel">
        <Async state={alerts}>
          {(list) =>
            list.length === 0 ? (
              <p class="muted">No alerts in this period.</p>
            ) : (
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th>When</th>
                      <th>Test</th>
                      <th>Result</th>
                      <th>Score (previous)</th>
                      <th>What happened</th>
                    </tr>
                  </thead>
                  <tbody data-testid="alerts">
                    {list.map((a, i) => (
                      <tr key={i}>
                        <td>{dateTime(a.timestamp)}</td>
                        <td>
                          <a href={href('tests', a.namespace, a.testName)}>{a.testName}</a>{' '}
                          <span class="muted">{a.namespace}</span>
                        </td>
                        <td>
                          <Badge tone={resultClass(a.result)}>{a.result}</Badge>
                        </td>
                        <td>
                          {a.score} ({a.prevScore})
                        </td>
                        <td>{a.message}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )
          }
        </Async>
      </section>
    </>
  );
}

export function UpcomingPage() {
  const upcoming = useLoad(async () => unwrap(await api.GET('/api/v1/upcoming')), []);
  return (
    <>
      <PageHeader title="Upcoming runs" />
      <section class="panel">
        <Async state={upcoming}>
          {(list) =>
            list.length === 0 ? (
              <p class="muted">Nothing scheduled.</p>
            ) : (
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th>Next run</th>
                      <th>Test</th>
                      <th>Namespace</th>
                      <th>Last score</th>
                    </tr>
                  </thead>
                  <tbody data-testid="upcoming">
                    {list.slice(0, 500).map((u) => (
                      <tr key={`${u.namespace}/${u.name}`} data-overdue={u.overdue ? 'true' : undefined}>
                        <td>
                          {!u.nextRunAt && u.onNextBackup ? 'on next backup' : dateTime(u.nextRunAt)} {u.overdue ? <Badge tone="bad">overdue</Badge> : null}
                        </td>
                        <td>
                          <a href={href('tests', u.namespace, u.name)}>{u.name}</a>
                        </td>
                        <td>{u.namespace}</td>
                        <td>{u.lastScore}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )
          }
        </Async>
      </section>
    </>
  );
}
