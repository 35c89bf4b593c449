// The YAML view on a test's page (issue 30, web/src/test-yaml.ts): collapsed until asked for, with
// copy and download, as the Coverage page's drafts offer theirs.
import { useMemo, useState } from 'preact/hooks';
import { download } from '../download.js';
import type { TestResponse } from '../format.js';
import { testYaml, testYamlFileName } from '../test-yaml.js';

export function TestYaml({ test }: { test: TestResponse }) {
  const yaml = useMemo(() => testYaml(test), [test]);
  const [copied, setCopied] = useState('');
  async function copy(): Promise<void> {
    try {
      await navigator.clipboard.writeText(yaml);
      setCopied('Copied.');
    } catch {
      // The clipboard API needs a secure page (https, localhost) and the user's permission.
      setCopied('The browser refused the clipboard: select the YAML and copy it.');
    }
  }
  return (
    <details class="panel" data-testid="test-yaml">
      <summary>
        <h2 class="inline">YAML</h2> <span class="muted">the test as the API answers it</span>
      </summary>
      <pre
        class="yaml"
        tabIndex={0}
        role="region"
        aria-label={`YAML of ${test.name}`}
        data-testid="test-yaml-text"
      >
        {yaml}
      </pre>
      <div class="row-actions wrap">
        <button type="button" onClick={() => void copy()}>
          Copy YAML
        </button>
        <button type="button" onClick={() => download(testYamlFileName(test), yaml, 'application/yaml')}>
          Download {testYamlFileName(test)}
        </button>
        <span role="status">{copied}</span>
      </div>
    </details>
  );
}
