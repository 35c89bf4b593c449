// "Run now" with live progress: POST .../trigger, then poll the test until its run ends, showing
// the phase and the elapsed time, and finally the result and score of the new run.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, describeError, unwrap } from '../api.js';
import { resultClass, type TestResponse } from '../format.js';

type Progress =
  | { state: 'idle' }
  | { state: 'running'; phase: string; since: number; now: number }
  | { state: 'done'; test: TestResponse }
  | { state: 'error'; headline: string; detail: string };

const POLL_MS = 1000;

export function TriggerButton({
  test,
  onFinished,
}: {
  test: Pick<TestResponse, 'name' | 'namespace'>;
  onFinished?: () => void;
}) {
  const [progress, setProgress] = useState<Progress>({ state: 'idle' });
  const alive = useRef(true);
  useEffect(() => () => void (alive.current = false), []);

  async function run(): Promise<void> {
    const path = { name: test.name };
    const query = { namespace: test.namespace };
    const since = Date.now();
    setProgress({ state: 'running', phase: 'requested', since, now: since });
    try {
      const before = unwrap(await api.GET('/api/v1/tests/{name}', { params: { path, query } }));
      const started = unwrap(await api.POST('/api/v1/tests/{name}/trigger', { params: { path, query } }));
      let current = started;
      while (alive.current) {
        setProgress({ state: 'running', phase: current.phase, since, now: Date.now() });
        const finished = current.phase !== 'Running' && current.lastRunAt !== before.lastRunAt;
        if (finished) break;
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        current = unwrap(await api.GET('/api/v1/tests/{name}', { params: { path, query } }));
      }
      if (!alive.current) return;
      setProgress({ state: 'done', test: current });
      onFinished?.();
    } catch (error) {
      if (alive.current) setProgress({ state: 'error', ...describeError(error) });
    }
  }

  return (
    <span class="trigger">
      <button type="button" onClick={run} disabled={progress.state === 'running'}>
        Run now
      </button>
      <span aria-live="polite" data-testid="trigger-progress">
        {progress.state === 'running' ? (
          <span class="progress">
            <span class="spinner" aria-hidden="true" /> {progress.phase} ·{' '}
            {Math.round((progress.now - progress.since) / 1000)} s
          </span>
        ) : progress.state === 'done' ? (
          <span class={resultClass(progress.test.lastResult)} data-testid="trigger-result">
            {progress.test.lastResult} · score {progress.test.lastScore}
          </span>
        ) : progress.state === 'error' ? (
          <span class="bad" role="alert">
            {progress.headline}: {progress.detail}
          </span>
        ) : null}
      </span>
    </span>
  );
}
