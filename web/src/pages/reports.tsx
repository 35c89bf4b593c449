// Reports: newest first, paged by the API (limit + the continue token of its Link rel="next",
// decision 0011), filtered by test, result and age through the API's own query parameters, so a
// 90-day view of 90,000 reports never travels to the browser. Export (JSON, YAML, CSV) writes the
// page shown, so it follows the filters.
import { useMemo, useState } from 'preact/hooks';
import { api, unwrap } from '../api.js';
import { Async, Badge, PageHeader, Pager, Segmented } from '../components/ui.js';
import { download } from '../download.js';
import { toYaml } from '../export.js';
import { dateTime, resultClass, type Report, type TestResponse } from '../format.js';
import { href, useLoad, useRoute } from '../hooks.js';
import { nextToken } from '../paging.js';
import { reportsCsv } from '../report-csv.js';

const RESULTS = ['all', 'pass', 'partial', 'fail'] as const;
const DAYS = [1, 7, 30, 90] as const;
const PER_PAGE = [50, 200, 1000] as const;

/** A typed test: "namespace/name", or a name only one namespace has. */
function resolveTest(typed: string, tests: TestResponse[]): { name: string; namespace: string } | undefined {
  const value = typed.trim();
  if (value.includes('/')) {
    const [namespace = '', name = ''] = value.split('/');
    return tests.find((t) => t.namespace === namespace && t.name === name);
  }
  const named = tests.filter((t) => t.name === value);
  return named.length === 1 ? named[0] : undefined;
}

export function ReportsPage() {
  const route = useRoute();
  const [days, setDays] = useState<number>(7);
  const [typed, setTyped] = useState('');
  const [result, setResult] = useState<(typeof RESULTS)[number]>('all');
  const [limit, setLimit] = useState<number>(Number(route.query.get('limit')) || PER_PAGE[0]);
  // tokens[i] = the continue token of page i (page 0 has none): "Previous" goes back through them.
  const [tokens, setTokens] = useState<(string | undefined)[]>([undefined]);
  const page = tokens.length - 1;
  const tests = useLoad(async () => unwrap(await api.GET('/api/v1/tests')), []);
  const test = typed.trim() && tests.data ? resolveTest(typed, tests.data) : undefined;
  const unknownTest = typed.trim() !== '' && tests.data !== undefined && test === undefined;
  const restart = (): void => setTokens([undefined]);

  const reports = useLoad(async () => {
    // The page and its size travel with the rows: while the next page loads, the rows shown are
    // still numbered as the page they are.
    if (unknownTest) return { list: [] as Report[], next: undefined, page, limit };
    const answer = await api.GET('/api/v1/reports', {
      params: {
        query: {
          days,
          limit,
          ...(test ? { test: test.name, namespace: test.namespace } : {}),
          ...(result !== 'all' ? { result } : {}),
          ...(tokens[page] ? { continue: tokens[page] } : {}),
        },
      },
    });
    return { list: unwrap(answer), next: nextToken(answer.response.headers.get('link')), page, limit };
  }, [days, limit, test?.namespace, test?.name, unknownTest, result, tokens]);

  return (
    <>
      <PageHeader title="Reports" />
      <section class="panel">
        <div class="toolbar">
          <label>
            Test{' '}
            <input
              type="search"
              list="report-tests"
              size={28}
              value={typed}
              placeholder="name or namespace/name"
              aria-describedby="report-test-hint"
              onInput={(e) => (setTyped(e.currentTarget.value), restart())}
            />
          </label>
          <datalist id="report-tests">
            {(tests.data ?? []).map((t) => (
              <option key={`${t.namespace}/${t.name}`} value={`${t.namespace}/${t.name}`} />
            ))}
          </datalist>
          <Segmented
            label="Result"
            options={RESULTS}
            value={result}
            onChange={(r) => (setResult(r), restart())}
          />
          <Segmented
            label="Completed within"
            options={DAYS}
            value={days as (typeof DAYS)[number]}
            onChange={(d) => (setDays(d), restart())}
            format={(d) => (d === 1 ? '24 h' : `${d} days`)}
          />
          <Segmented
            label="Per page"
            options={PER_PAGE}
            value={limit as (typeof PER_PAGE)[number]}
            onChange={(n) => (setLimit(n), restart())}
            format={(n) => `${n} per page`}
          />
        </div>
        <p
          id="report-test-hint"
          class={unknownTest ? 'bad' : 'muted'}
          role={unknownTest ? 'alert' : undefined}
        >
          {unknownTest
            ? `No test "${typed.trim()}"${typed.includes('/') ? '' : ' (or more than one namespace has one: type namespace/name)'}.`
            : test
              ? `Reports of ${test.namespace}/${test.name}.`
              : 'All tests.'}
        </p>
        <Async state={reports}>
          {(loaded) => (
            <ReportTable
              reports={loaded.list}
              first={loaded.page * loaded.limit}
              page={loaded.page}
              hasNext={loaded.next !== undefined}
              onPage={(p) =>
                setTokens((t) =>
                  p < loaded.page ? t.slice(0, p + 1) : [...t.slice(0, loaded.page + 1), loaded.next],
                )
              }
              exportName={`rehearsal-reports-${days}d${test ? `-${test.name}` : ''}${result !== 'all' ? `-${result}` : ''}-page${page + 1}`}
            />
          )}
        </Async>
      </section>
    </>
  );
}

function ReportTable(props: {
  reports: Report[];
  first: number;
  page: number;
  hasNext: boolean;
  onPage: (page: number) => void;
  exportName: string;
}) {
  const { reports, first, page, hasNext, onPage, exportName } = props;
  const yaml = useMemo(() => () => toYaml(reports), [reports]);
  return (
    <>
      <div class="toolbar">
        <span class="muted" data-testid="reports-count">
          {reports.length === 0
            ? 'No reports'
            : `Reports ${first + 1}–${first + reports.length}${hasNext ? ', more on the next page' : ''}`}
        </span>
        <button
          type="button"
          disabled={reports.length === 0}
          onClick={() => download(`${exportName}.json`, JSON.stringify(reports, null, 2), 'application/json')}
        >
          Export this page as JSON
        </button>
        <button
          type="button"
          disabled={reports.length === 0}
          onClick={() => download(`${exportName}.yaml`, yaml(), 'application/yaml')}
        >
          Export this page as YAML
        </button>
        <button
          type="button"
          disabled={reports.length === 0}
          // With a byte order mark: spreadsheets then read the names and messages as UTF-8.
          onClick={() => download(`${exportName}.csv`, `\uFEFF${reportsCsv(reports)}`, 'text/csv;charset=utf-8')}
        >
          Download CSV
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
            {reports.map((r) => (
              <tr key={`${r.metadata.namespace}/${r.metadata.name}`}>
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
      <Pager label="Pages of reports" page={page} hasNext={hasNext} onPage={onPage} />
    </>
  );
}
