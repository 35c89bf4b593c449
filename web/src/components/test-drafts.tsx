// The drafts GET /api/v1/test-drafts answered (issue 32), each with what the user must complete
// (the sqlQuery skeleton's TODO marks), how it was drafted, its YAML to copy or download (one file
// per test, and a kustomization.yaml, for GitOps), and a Create button. Create is
// POST /api/v1/test-drafts/{sourceNamespace}, not the test form: the form edits CreateTestInput,
// which has no inline checks, so a draft sent through it would lose the checks it was drafted with.
// Nothing is created without that click.
import { useState } from 'preact/hooks';
import { api, unwrap } from '../api.js';
import { download } from '../download.js';
import { href } from '../hooks.js';
import { permissionText } from '../problem-text.js';
import { draftFileName, draftYaml, kustomizationYaml, type TestDraft, type TestDraftsResponse } from '../test-drafts.js';
import { Badge, ErrorPanel } from './ui.js';

const YAML_TYPE = 'application/yaml';

const SKIP_REASONS: Record<TestDraftsResponse['skipped'][number]['reason'], string> = {
  forbidden: 'you may not read its workloads',
  'not-backed-up': 'no backup covers it',
  unreadable: 'the server could not list it',
};

export function DraftList({ answer, onCreated }: { answer: TestDraftsResponse; onCreated: () => void }) {
  const files = answer.drafts.map(draftFileName);
  return (
    <div data-testid="drafts">
      {answer.skipped.length > 0 ? <SkippedNamespaces skipped={answer.skipped} /> : null}
      {answer.drafts.length === 0 ? (
        <p class="muted">No test was drafted.</p>
      ) : (
        <>
          <div class="toolbar">
            <span data-testid="drafts-count">
              {answer.drafts.length === 1 ? '1 draft' : `${answer.drafts.length} drafts`}, to live in namespace{' '}
              <code>{answer.testNamespace}</code>
            </span>
            <button
              type="button"
              onClick={() => {
                // One file per test and a kustomization.yaml; the browser may ask once to allow several downloads.
                for (const draft of answer.drafts) download(draftFileName(draft), draftYaml(draft), YAML_TYPE);
                download('kustomization.yaml', kustomizationYaml(files), YAML_TYPE);
              }}
            >
              Download all ({files.length} {files.length === 1 ? 'file' : 'files'} and kustomization.yaml)
            </button>
          </div>
          {answer.drafts.map((draft) => (
            <DraftCard key={draft.namespace} draft={draft} testNamespace={answer.testNamespace} onCreated={onCreated} />
          ))}
        </>
      )}
    </div>
  );
}

function SkippedNamespaces({ skipped }: { skipped: TestDraftsResponse['skipped'] }) {
  return (
    <div class="note warn-note" role="note" data-testid="drafts-skipped">
      <strong>Not drafted ({skipped.length}):</strong>
      <ul>
        {skipped.map((entry) => (
          <li key={entry.namespace}>
            <code>{entry.namespace}</code>: {SKIP_REASONS[entry.reason]}. {entry.message}
            {entry.missingPermissions?.length ? (
              <> Missing: {entry.missingPermissions.map(permissionText).join(', ')}.</>
            ) : null}
          </li>
        ))}
      </ul>
    </div>
  );
}

type Creation = { state: 'idle' } | { state: 'creating' } | { state: 'created'; name: string; namespace: string } | { state: 'failed'; error: unknown };

function DraftCard({ draft, testNamespace, onCreated }: { draft: TestDraft; testNamespace: string; onCreated: () => void }) {
  const [creation, setCreation] = useState<Creation>({ state: 'idle' });
  const [copied, setCopied] = useState('');
  const name = draft.test.metadata.name;
  const yaml = draftYaml(draft);
  const titleId = `draft-${draft.namespace}`;

  async function copy(): Promise<void> {
    try {
      await navigator.clipboard.writeText(yaml);
      setCopied('Copied.');
    } catch {
      // The clipboard API needs a secure page (https, localhost) and the user's permission.
      setCopied('The browser refused the clipboard: select the YAML below and copy it.');
    }
  }

  async function create(): Promise<void> {
    setCreation({ state: 'creating' });
    try {
      const test = unwrap(
        await api.POST('/api/v1/test-drafts/{sourceNamespace}', {
          params: { path: { sourceNamespace: draft.namespace }, query: { namespace: testNamespace } },
        }),
      );
      setCreation({ state: 'created', name: test.name, namespace: test.namespace });
      onCreated();
    } catch (error) {
      setCreation({ state: 'failed', error });
    }
  }

  return (
    <article class="panel draft" aria-labelledby={titleId} data-testid="draft">
      <h3 id={titleId}>
        {name} <span class="muted">restores</span> <code>{draft.namespace}</code>{' '}
        {draft.todo.length > 0 ? <Badge tone="warn">TODO</Badge> : null}
      </h3>
      {draft.todo.length > 0 ? (
        <div class="note warn-note" role="note" data-testid="draft-todo">
          <strong>To complete before this test can pass:</strong>
          <ul>
            {draft.todo.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </div>
      ) : null}
      {draft.notes.length > 0 ? (
        <details>
          <summary>How it was drafted ({draft.notes.length})</summary>
          <ul>
            {draft.notes.map((note) => (
              <li key={note}>{note}</li>
            ))}
          </ul>
        </details>
      ) : null}
      <pre class="yaml" tabIndex={0} role="region" aria-label={`YAML of ${name}`} data-testid="draft-yaml">
        {yaml}
      </pre>
      <div class="row-actions wrap">
        <button type="button" onClick={() => void copy()}>
          Copy YAML
        </button>
        <button type="button" onClick={() => download(draftFileName(draft), yaml, YAML_TYPE)}>
          Download {draftFileName(draft)}
        </button>
        {creation.state === 'created' ? (
          <span class="ok" role="status">
            Created <a href={href('tests', creation.namespace, creation.name)}>{creation.name}</a>.
          </span>
        ) : (
          <button type="button" class="primary" disabled={creation.state === 'creating'} onClick={() => void create()}>
            Create test
          </button>
        )}
        <span role="status">{copied}</span>
      </div>
      <p class="hint">
        Create asks the server to draft this namespace again and create the test in <code>{testNamespace}</code> under
        the rule of any new test (your restore rights in <code>{draft.namespace}</code>; you are recorded as its
        author).
        {draft.todo.length > 0
          ? ' Created as drafted, its TODO checks fail until completed: complete the YAML and apply it, or edit the test with kubectl (the form here does not edit checks).'
          : ''}
      </p>
      {creation.state === 'failed' ? <ErrorPanel error={creation.error} /> : null}
    </article>
  );
}
