// Overview: summary cards (last 24 h), daily trend over 30/60/90 days, a calendar of runs, the
// failing tests and the next scheduled runs.
import { useState } from 'preact/hooks';
import { api, unwrap } from '../api.js';
import { Heatmap, TrendChart } from '../components/charts.js';
import { Async, Badge, Card, PageHeader, Segmented } from '../components/ui.js';
import { dateTime, resultClass, scoreClass } from '../format.js';
import { href, useLoad } from '../hooks.js';

const RANGES = [30, 60, 90] as const;

export function OverviewPage() {
  const [days, setDays] = useState<(typeof RANGES)[number]>(30);
  const summary = useLoad(async () => unwrap(await api.GET('/api/v1/summary')), []);
  const daily = useLoad(
    async () => unwrap(await api.GET('/api/v1/summary/daily', { params: { query: { days } } })),
    [days],
  );
  const calendar = useLoad(
    async () => unwrap(await api.GET('/api/v1/summary/daily', { params: { query: { days: 90 } } })),
    [],
  );
  const tests = useLoad(async () => unwrap(await api.GET('/api/v1/tests')), []);
  const upcoming = useLoad(async () => unwrap(await api.GET('/api/v1/upcoming')), []);
  return (
    <>
      <PageHeader title="Overview" />
      <Async state={summary}>
        {(s) => (
          <section class="cards" aria-label="Last 24 hours">
            <Card
              label="Average score (24 h)"
              value={s.averageScore}
              tone={scoreClass(s.averageScore)}
              testId="summary-average-score"
            />
            <Card label="Tests" value={s.totalTests} testId="summary-total-tests" />
            <Card label="Tests run (24 h)" value={s.testsLastNight} />
            <Card
              label="Failures (24 h)"
              value={s.totalFailures}
              tone={s.totalFailures ? 'bad' : 'ok'}
              testId="summary-failures"
            />
            <Card label="Partial (24 h)" value={s.totalPartial} tone={s.totalPartial ? 'warn' : ''} />
            <Card label="Average RTO (24 h)" value={s.averageRTO} />
            <Card label="Namespaces covered" value={s.namespacesCovered} />
            {s.namespacesBackedUpUntested !== undefined ? (
              <Card
                label="Backed up, untested"
                value={<a href={href('coverage')}>{s.namespacesBackedUpUntested}</a>}
                tone={s.namespacesBackedUpUntested ? 'bad' : 'ok'}
                testId="summary-backed-up-untested"
              />
            ) : null}
          </section>
        )}
      </Async>
      <section class="panel">
        <div class="panel-head">
          <h2>Daily trend</h2>
          <Segmented
            label="Trend range"
            options={RANGES}
            value={days}
            onChange={setDays}
            format={(d) => `${d} days`}
          />
        </div>
        <Async state={daily}>{(d) => <TrendChart days={d} />}</Async>
      </section>
      <div class="grid two">
        <section class="panel">
          <h2>Runs calendar (90 days)</h2>
          <Async state={calendar}>{(d) => <Heatmap days={d} />}</Async>
        </section>
        <section class="panel">
          <h2>Failing tests</h2>
          <Async state={tests}>
            {(list) => {
              const failing = list.filter((t) => t.lastResult === 'fail');
              if (failing.length === 0) return <p class="muted">No test failed its last run.</p>;
              return (
                <ul class="plain" data-testid="failing-tests">
                  {failing.slice(0, 10).map((t) => (
                    <li key={`${t.namespace}/${t.name}`}>
                      <a href={href('tests', t.namespace, t.name)}>{t.name}</a>{' '}
                      <span class="muted">{t.namespace}</span>{' '}
                      <span class={resultClass(t.lastResult)}>score {t.lastScore}</span>
                    </li>
                  ))}
                  {failing.length > 10 ? <li class="muted">and {failing.length - 10} more</li> : null}
                </ul>
              );
            }}
          </Async>
        </section>
      </div>
      <section class="panel">
        <h2>Upcoming runs</h2>
        <Async state={upcoming}>
          {(list) =>
            list.length === 0 ? (
              <p class="muted">Nothing scheduled.</p>
            ) : (
              <ul class="plain">
                {list.slice(0, 5).map((u) => (
                  <li key={`${u.namespace}/${u.name}`}>
                    {!u.nextRunAt && u.onNextBackup ? 'on next backup' : dateTime(u.nextRunAt)} {u.overdue ? <Badge tone="bad">overdue</Badge> : null} —{' '}
                    <a href={href('tests', u.namespace, u.name)}>{u.name}</a>{' '}
                    <span class="muted">
                      {u.namespace}, last score {u.lastScore}
                    </span>
                  </li>
                ))}
              </ul>
            )
          }
        </Async>
      </section>
    </>
  );
}
