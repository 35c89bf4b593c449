// Coverage (issues 16 and 32): every namespace the backup tool backs up, whether a RestoreTest
// restores it and whether a passing run proved it within its window (GET /api/v1/coverage), and
// "Generate tests" for the ones without a test: drafts from GET /api/v1/test-drafts, shown with
// their TODO marks and YAML, created only on the user's click (components/test-drafts.tsx).
import { useMemo, useState } from 'preact/hooks';
import { api, unwrap } from '../api.js';
import { DraftList } from '../components/test-drafts.js';
import { Async, Badge, Card, ErrorPanel, PageHeader } from '../components/ui.js';
import { dateTime } from '../format.js';
import { href, useLoad } from '../hooks.js';
import {
  draftBatches,
  mergeDraftAnswers,
  namespacesWithoutTest,
  type CoverageResponse,
  type NamespaceCoverage,
  type TestDraftsResponse,
} from '../test-drafts.js';

const STATUS_TONES: Record<NamespaceCoverage['status'], string> = { tested: 'ok', stale: 'warn', untested: 'bad' };

export function CoveragePage() {
  const coverage = useLoad(async () => unwrap(await api.GET('/api/v1/coverage')), []);
  return (
    <>
      <PageHeader title="Coverage" />
      <Async state={coverage}>{(c) => <Coverage coverage={c} reload={coverage.reload} />}</Async>
    </>
  );
}

function Coverage({ coverage, reload }: { coverage: CoverageResponse; reload: () => void }) {
  const withoutTest = useMemo(() => namespacesWithoutTest(coverage), [coverage]);
  // Every namespace without a test is selected at first: one click drafts them all.
  const [selected, setSelected] = useState<ReadonlySet<string>>(() => new Set(withoutTest));
  const toggle = (namespace: string, on: boolean): void =>
    setSelected((previous) => {
      const next = new Set(previous);
      if (on) next.add(namespace);
      else next.delete(namespace);
      return next;
    });
  return (
    <>
      <section class="cards" aria-label="Coverage">
        <Card label="Backed-up namespaces" value={coverage.backedUp} testId="coverage-backed-up" />
        <Card label="Tested" value={coverage.tested} tone="ok" />
        <Card label="Untested or stale" value={coverage.untested} tone={coverage.untested ? 'bad' : 'ok'} testId="coverage-untested" />
        <Card label="Without a test" value={withoutTest.length} tone={withoutTest.length ? 'warn' : 'ok'} testId="coverage-without-test" />
      </section>
      <section class="panel">
        <div class="panel-head">
          <h2>Backed-up namespaces</h2>
          {withoutTest.length > 0 ? (
            <div class="row-actions">
              <button type="button" class="link" onClick={() => setSelected(new Set(withoutTest))}>
                Select all without a test
              </button>
              <button type="button" class="link" onClick={() => setSelected(new Set())}>
                Select none
              </button>
            </div>
          ) : null}
        </div>
        {coverage.namespaces.length === 0 ? (
          <p class="muted">The backup tool backs up no namespace you may see.</p>
        ) : (
          <CoverageTable namespaces={coverage.namespaces} selected={selected} onToggle={toggle} />
        )}
      </section>
      <DraftPanel withoutTest={withoutTest} selected={selected} onCreated={reload} />
    </>
  );
}

function CoverageTable({
  namespaces,
  selected,
  onToggle,
}: {
  namespaces: NamespaceCoverage[];
  selected: ReadonlySet<string>;
  onToggle: (namespace: string, on: boolean) => void;
}) {
  return (
    <div class="table-wrap">
      <table data-testid="coverage-table">
        <thead>
          <tr>
            <th>
              <span class="visually-hidden">Draft</span>
            </th>
            <th>Namespace</th>
            <th>Status</th>
            <th>RestoreTests</th>
            <th>Backed up by</th>
            <th>Last backup</th>
            <th>Window</th>
            <th>Last pass</th>
          </tr>
        </thead>
        <tbody>
          {namespaces.map((entry) => (
            <tr key={entry.namespace} data-namespace={entry.namespace}>
              <td>
                {entry.tests.length === 0 ? (
                  <input
                    type="checkbox"
                    aria-label={`Draft a test for ${entry.namespace}`}
                    checked={selected.has(entry.namespace)}
                    onChange={(e) => onToggle(entry.namespace, e.currentTarget.checked)}
                  />
                ) : null}
              </td>
              <td>{entry.namespace}</td>
              <td>
                <Badge tone={STATUS_TONES[entry.status]}>{entry.status}</Badge>
              </td>
              <td>
                {entry.tests.length === 0 ? (
                  <span class="muted">none</span>
                ) : (
                  entry.tests.map((key, index) => {
                    const [namespace = '', name = ''] = key.split('/');
                    return (
                      <span key={key}>
                        {index > 0 ? ', ' : ''}
                        <a href={href('tests', namespace, name)}>{key}</a>
                      </span>
                    );
                  })
                )}
              </td>
              <td>{entry.backedUpBy.join(', ')}</td>
              <td>{dateTime(entry.lastBackupAt)}</td>
              <td>{entry.window}</td>
              <td>{dateTime(entry.lastPassedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function DraftPanel({
  withoutTest,
  selected,
  onCreated,
}: {
  withoutTest: string[];
  selected: ReadonlySet<string>;
  onCreated: () => void;
}) {
  const [testNamespace, setTestNamespace] = useState('');
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<TestDraftsResponse>();
  const [error, setError] = useState<unknown>();
  const batches = draftBatches(selected, withoutTest);
  const count = withoutTest.filter((namespace) => selected.has(namespace)).length;

  async function generate(): Promise<void> {
    setBusy(true);
    setError(undefined);
    setAnswer(undefined);
    try {
      const answers: TestDraftsResponse[] = [];
      for (const batch of batches) {
        answers.push(
          unwrap(
            await api.GET('/api/v1/test-drafts', {
              params: {
                query: {
                  yaml: true,
                  sourceNamespace: batch,
                  ...(testNamespace.trim() ? { namespace: testNamespace.trim() } : {}),
                },
              },
            }),
          ),
        );
      }
      setAnswer(mergeDraftAnswers(answers));
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section class="panel" aria-labelledby="drafts-title">
      <h2 id="drafts-title">Draft tests</h2>
      {withoutTest.length === 0 ? (
        <p class="muted">Every backed-up namespace listed has a RestoreTest.</p>
      ) : (
        <>
          <p class="hint">
            The server drafts a RestoreTest for each selected namespace from its workloads, Services and backup
            schedule. Drafting writes nothing: review each draft, then download its YAML or create it.
          </p>
          <div class="toolbar">
            <label for="draft-namespace">Namespace of the tests</label>
            <input
              id="draft-namespace"
              type="text"
              placeholder="the server's namespace"
              value={testNamespace}
              onInput={(e) => setTestNamespace(e.currentTarget.value)}
            />
            <button type="button" class="primary" disabled={busy || batches.length === 0} onClick={() => void generate()}>
              Generate tests ({count} selected)
            </button>
          </div>
        </>
      )}
      {busy ? (
        <p class="muted" aria-busy="true">
          Drafting…
        </p>
      ) : null}
      {error !== undefined ? <ErrorPanel error={error} /> : null}
      {answer ? <DraftList answer={answer} onCreated={onCreated} /> : null}
    </section>
  );
}
