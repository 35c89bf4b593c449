// Why a failed or partial run's application did not come up (GET /api/v1/tests/{name}/diagnosis,
// issue 16): the hints with their remediation, the pods that were not Ready, Warning events, claims
// and container logs, as collected from the sandbox before it could be deleted. Each log (issue 30:
// init containers and previous instances too) is a collapsed <details> with its <pre>, so a
// diagnosis of many containers stays one screen until the reader opens one.
import { api, unwrap, type components } from '../api.js';
import { useLoad } from '../hooks.js';
import { Async } from './ui.js';

type Diagnosis = components['schemas']['RunDiagnosis'];

export function DiagnosisPanel({
  namespace,
  name,
  runId,
}: {
  namespace: string;
  name: string;
  runId: string;
}) {
  const diagnosis = useLoad<Diagnosis | undefined>(async () => {
    const answer = await api.GET('/api/v1/tests/{name}/diagnosis', {
      params: { path: { name }, query: { namespace, run: runId } },
    });
    // 404: this run has no diagnosis (collected only while a sandbox existed): say so, no error.
    if (answer.response.status === 404) return undefined;
    return unwrap(answer);
  }, [namespace, name, runId]);
  return (
    <section class="panel" data-testid="diagnosis">
      <h2>Diagnosis</h2>
      <Async state={diagnosis}>
        {(d) =>
          d ? <DiagnosisBody diagnosis={d} /> : <p class="muted">No diagnosis was stored for run {runId}.</p>
        }
      </Async>
    </section>
  );
}

function DiagnosisBody({ diagnosis: d }: { diagnosis: Diagnosis }) {
  return (
    <>
      <p class="muted">
        Collected {d.collectedAt.replace('T', ' ').slice(0, 16)} UTC from{' '}
        {d.sandboxes.join(', ') || 'no sandbox'}
        {d.truncated ? ' (shortened to stay small)' : ''}.
      </p>
      {d.hints.length === 0 ? (
        <p>
          No known cause was recognised
          {d.pods.length + d.events.length > 0
            ? '; the pods and events below are what the sandbox showed.'
            : ', and no pod or Warning event stood out.'}
        </p>
      ) : (
        <ul class="hints">
          {d.hints.map((h) => (
            <li key={`${h.code}:${h.objects.join(',')}`}>
              <strong>{h.title}</strong> <span class="muted">({h.objects.join(', ')})</span>
              <br />
              {h.remediation}
            </li>
          ))}
        </ul>
      )}
      {d.pods.length > 0 ? (
        <>
          <h3>Pods not Ready</h3>
          <ul class="plain">
            {d.pods.map((p) => (
              <li key={`${p.namespace}/${p.name}`}>
                {p.name} ({p.phase})
                {p.unscheduled ? `: ${p.unscheduled.reason} — ${p.unscheduled.message}` : ''}
                {p.containers
                  .filter((c) => !c.ready)
                  .map(
                    (c) =>
                      ` · ${c.name}: ${c.state}${c.reason ? ` ${c.reason}` : ''}${c.restartCount ? `, ${c.restartCount} restarts` : ''}`,
                  )
                  .join('')}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {d.events.length > 0 ? (
        <>
          <h3>Warning events</h3>
          <ul class="plain">
            {d.events.map((e) => (
              <li key={`${e.object}:${e.reason}:${e.lastSeen}`}>
                {e.object} {e.reason}
                {e.count > 1 ? ` ×${e.count}` : ''}: {e.message}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {d.logs.length > 0 ? (
        <>
          <h3>Container logs</h3>
          {d.logs.map((l) => {
            const kind = `${l.init ? ' (init)' : ''}${l.previous ? ' (previous instance)' : ''}`;
            return (
              <details key={`${l.pod}/${l.container}/${l.init ? 'i' : ''}${l.previous ? 'p' : ''}`}>
                <summary>
                  {l.pod} {l.container}
                  {kind} <span class="muted">{l.lines.length} lines</span>
                </summary>
                <pre aria-label={`Log of ${l.pod}/${l.container}${kind}`}>
                  {l.truncated ? `[… ${l.omittedLines ? `${l.omittedLines} ` : ''}older lines left out]\n` : ''}
                  {l.lines.join('\n')}
                </pre>
              </details>
            );
          })}
        </>
      ) : d.logsNote ? (
        <p class="muted">{d.logsNote}</p>
      ) : null}
    </>
  );
}
