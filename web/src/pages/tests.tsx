// Tests: a searchable, sortable list (1,000 tests stay fast: filtering and sorting are memoised,
// and only one page of rows is in the DOM), delete with confirmation, and "Run now".
import { useMemo, useState } from 'preact/hooks';
import { api, describeError, expectOk, unwrap } from '../api.js';
import { Schedule } from '../components/schedule.js';
import { TriggerButton } from '../components/trigger.js';
import { Async, Badge, Dialog, PageHeader, Pager } from '../components/ui.js';
import { dateTime, resultClass, type TestResponse } from '../format.js';
import { href, useLoad } from '../hooks.js';

type SortKey = 'name' | 'namespace' | 'schedule' | 'phase' | 'lastScore' | 'lastRunAt' | 'nextRunAt';
const COLUMNS: { key: SortKey; label: string }[] = [
  { key: 'name', label: 'Name' },
  { key: 'namespace', label: 'Namespace' },
  { key: 'schedule', label: 'Schedule' },
  { key: 'phase', label: 'Phase' },
  { key: 'lastScore', label: 'Last score' },
  { key: 'lastRunAt', label: 'Last run' },
  { key: 'nextRunAt', label: 'Next run' },
];
const PAGE = 100;

export function TestsPage() {
  const tests = useLoad(async () => unwrap(await api.GET('/api/v1/tests')), []);
  return (
    <>
      <PageHeader title="Tests">
        <a class="button primary" href={href('new-test')}>
          New test
        </a>
      </PageHeader>
      <Async state={tests}>{(list) => <TestTable tests={list} reload={tests.reload} />}</Async>
    </>
  );
}

function TestTable({ tests, reload }: { tests: TestResponse[]; reload: () => void }) {
  const [query, setQuery] = useState('');
  const [sort, setSort] = useState<{ key: SortKey; descending: boolean }>({ key: 'name', descending: false });
  const [page, setPage] = useState(0);
  const [deleting, setDeleting] = useState<TestResponse>();

  const rows = useMemo(() => {
    const needle = query.trim().toLowerCase();
    const matched = needle
      ? tests.filter((t) =>
          `${t.name} ${t.namespace} ${t.provider} ${t.sourceNamespaces.join(' ')} ${t.phase} ${t.lastResult}`
            .toLowerCase()
            .includes(needle),
        )
      : tests;
    const sign = sort.descending ? -1 : 1;
    return [...matched].sort((a, b) => {
      const x = a[sort.key];
      const y = b[sort.key];
      return (
        sign * (typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y)))
      );
    });
  }, [tests, query, sort]);
  const pages = Math.max(1, Math.ceil(rows.length / PAGE));
  const shown = rows.slice(page * PAGE, page * PAGE + PAGE);

  return (
    <section class="panel">
      <div class="toolbar">
        <label class="search">
          <span class="visually-hidden">Search tests</span>
          <input
            type="search"
            placeholder="Search name, namespace, provider, result…"
            value={query}
            onInput={(e) => {
              setQuery(e.currentTarget.value);
              setPage(0);
            }}
          />
        </label>
        <span class="muted" data-testid="tests-count">
          {rows.length} of {tests.length} tests
        </span>
      </div>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              {COLUMNS.map((c) => (
                <th
                  key={c.key}
                  aria-sort={sort.key === c.key ? (sort.descending ? 'descending' : 'ascending') : 'none'}
                >
                  <button
                    type="button"
                    class="sort"
                    onClick={() =>
                      setSort((s) => ({ key: c.key, descending: s.key === c.key ? !s.descending : false }))
                    }
                  >
                    {c.label}
                    {sort.key === c.key ? (sort.descending ? ' ▼' : ' ▲') : ''}
                  </button>
                </th>
              ))}
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((t) => (
              <tr key={`${t.namespace}/${t.name}`}>
                <td>
                  <a href={href('tests', t.namespace, t.name)}>{t.name}</a>
                </td>
                <td>{t.namespace}</td>
                <td>
                  <Schedule test={t} />
                </td>
                <td>{t.phase}</td>
                <td>
                  {t.lastResult ? (
                    <Badge tone={resultClass(t.lastResult)}>{`${t.lastScore} ${t.lastResult}`}</Badge>
                  ) : (
                    <span class="muted">never run</span>
                  )}
                </td>
                <td>{dateTime(t.lastRunAt)}</td>
                <td>{!t.nextRunAt && t.onBackup ? 'on next backup' : dateTime(t.nextRunAt)}</td>
                <td>
                  <span class="row-actions">
                    <TriggerButton test={t} onFinished={reload} />
                    <a href={href('edit-test', t.namespace, t.name)} aria-label={`Edit ${t.name}`}>
                      Edit
                    </a>
                    <button
                      type="button"
                      class="link danger"
                      onClick={() => setDeleting(t)}
                      aria-label={`Delete ${t.name}`}
                    >
                      Delete
                    </button>
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager label="Pages of tests" page={page} pages={pages} onPage={setPage} />
      {deleting ? (
        <DeleteDialog test={deleting} onClose={() => setDeleting(undefined)} onDeleted={reload} />
      ) : null}
    </section>
  );
}

export function DeleteDialog({
  test,
  onClose,
  onDeleted,
}: {
  test: TestResponse;
  onClose: () => void;
  onDeleted: () => void;
}) {
  const [error, setError] = useState<string>();
  async function confirm(): Promise<void> {
    try {
      expectOk(
        await api.DELETE('/api/v1/tests/{name}', {
          params: { path: { name: test.name }, query: { namespace: test.namespace } },
        }),
      );
      onClose();
      onDeleted();
    } catch (e) {
      const { headline, detail } = describeError(e);
      setError(`${headline}: ${detail}`);
    }
  }
  return (
    <Dialog title={`Delete ${test.name}?`} onClose={onClose}>
      <p>
        The RestoreTest{' '}
        <strong>
          {test.namespace}/{test.name}
        </strong>{' '}
        and all its reports (its evidence) will be deleted.
      </p>
      {error ? (
        <p role="alert" class="bad">
          {error}
        </p>
      ) : null}
      <div class="actions">
        <button type="button" class="danger" onClick={confirm}>
          Delete
        </button>
        <button type="button" onClick={onClose} autofocus>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}
