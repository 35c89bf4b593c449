// Reports: newest first, filtered by test, result and age, paged, exported as JSON or YAML.
import { useMemo, useState } from 'preact/hooks';
import { api, unwrap } from '../api.js';
import { Async, Badge, PageHeader, Pager, Segmented } from '../components/ui.js';
import { download } from '../download.js';
import { toYaml } from '../export.js';
import { dateTime, resultClass, type Report } from '../format.js';
import { href, useLoad } from '../hooks.js';

const RESULTS = ['all', 'pass', 'partial', 'fail'] as const;
const DAYS = [1, 7, 30, 90] as const;
const PAGE = 50;

export function ReportsPage() {
  const [days, setDays] = useState<(typeof DAYS)[number]>(7);
  const [test, setTest] = useState('');
  const [result, setResult] = useState<(typeof RESULTS)[number]>('all');
  const [page, setPage] = useState(0);
  const reports = useLoad(
    async () => unwrap(await api.GET('/api/v1/reports', { params: { query: { days } } })),
    [days],
  );
  return (
    <>
      <PageHeader title="Reports" />
      <section class="panel">
        <div class="toolbar">
          <label>
            Test{' '}
            <input
              type="search"
              value={test}
              placeholder="name contains…"
              onInput={(e) => (setTest(e.currentTarget.value), setPage(0))}
            />
          </label>
          <Segmented
            label="Result"
            options={RESULTS}
            value={result}
            onChange={(r) => (setResult(r), setPage(0))}
          />
          <Segmented
            label="Completed within"
            options={DAYS}
            value={days}
            onChange={(d) => (setDays(d), setPage(0))}
            format={(d) => (d === 1 ? '24 h' : `${d} days`)}
          />
        </div>
        <Async state={reports}>
          {(list) => (
            <ReportTable
              reports={list}
              test={test}
              result={result}
              page={page}
              setPage={setPage}
              days={days}
            />
          )}
        </Async>
      </section>
    </>
  );
}

function ReportTable(props: {
  reports: Report[];
  test: string;
  result: string;
  page: number;
  setPage: (p: number) => void;
  days: number;
}) {
  const { reports, test, result, page, setPage, days } = props;
  const filtered = useMemo(() => {
    const needle = test.trim().toLowerCase();
    return reports.filter(
      (r) =>
        (result === 'all' || r.spec.result === result) &&
        (!needle || r.spec.testRef.name.toLowerCase().includes(needle)),
    );
  }, [reports, test, result]);
  const pages = Math.max(1, Math.ceil(filtered.length / PAGE));
  const shown = filtered.slice(page * PAGE, page * PAGE + PAGE);
  const base = `rehearsal-reports-${days}d`;
  return (
    <>
      <div class="toolbar">
        <span class="muted" data-testid="reports-count">
          {filtered.length} reports
        </span>
        <button
          type="button"
          onClick={() => download(`${base}.json`, JSON.stringify(filtered, null, 2), 'application/json')}
        >
          Export JSON
        </button>
        <button type="button" onClick={() => download(`${base}.yaml`, toYaml(filtered), 'application/yaml')}>
          Export YAML
        </button>
      </div>
      <div class="table-wrap">
        <table data-testid="reports-table">
          <thead>
            <tr>
              <th>Completed</th>
              <th>Test</th>
              <th>Result</th>
              <th>RTO</th>
              <th>Trigger</th>
              <th>Report</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((r) => (
              <tr key={r.metadata.name}>
                <td>{dateTime(r.spec.completedAt)}</td>
                <td>
                  <a href={href('tests', r.spec.testRef.namespace, r.spec.testRef.name)}>
                    {r.spec.testRef.name}
                  </a>{' '}
                  <span class="muted">{r.spec.testRef.namespace}</span>
                </td>
                <td>
                  <Badge tone={resultClass(r.spec.result)}>{`${r.spec.score} ${r.spec.result}`}</Badge>
                </td>
                <td>
                  {r.spec.rto.measured ?? '—'}
                  {r.spec.rto.withinSLA === false ? <span class="bad"> (over SLA)</span> : null}
                </td>
                <td>{r.spec.trigger}</td>
                <td class="mono">{r.metadata.name}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager label="Pages of reports" page={page} pages={pages} onPage={setPage} />
    </>
  );
}
