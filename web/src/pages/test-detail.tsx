// One test: its latest run in detail (score by level, RTO phases against the SLA, the measured RPO and
// the volumes restored, checks, which check capped the result, completeness, evidence verified in the
// browser, until when the sandbox is kept, the diagnosis of a run that did not pass), and score and
// RTO history across its reports. A test that restores a subset says which (issue 32).
import { useState } from 'preact/hooks';
import { restoredSubsetText } from '../../../protocol/restore-subset-text.js';
import { api, downloadUrl, unwrap } from '../api.js';
import { History, RtoBar, type Phase } from '../components/charts.js';
import { DiagnosisPanel } from '../components/diagnosis.js';
import { PreflightPanel } from '../components/preflight.js';
import { RecoveryPoint } from '../components/recovery-point.js';
import { Schedule } from '../components/schedule.js';
import { TestYaml } from '../components/test-yaml.js';
import { TriggerButton } from '../components/trigger.js';
import { Async, Badge, Card, PageHeader } from '../components/ui.js';
import { importKeys, verifyReport, type Verdict } from '../evidence.js';
import { dateTime, LEVEL_NAMES, resultClass, seconds, type Report, type TestResponse } from '../format.js';
import { href, navigate, useLoad } from '../hooks.js';
import { DeleteDialog } from './tests.js';

function phasesOf(report: Report): Phase[] {
  const p = report.spec.rto.phases;
  const at = (iso: string | undefined): number | undefined => (iso ? Date.parse(iso) : undefined);
  const marks: [string, number | undefined][] = [
    ['Restore', at(p.restoreCompletedAt)],
    ['Pods ready', at(p.podsReadyAt)],
    ['Checks', at(p.checksCompletedAt)],
  ];
  let previous = at(p.restoreRequestedAt);
  const phases: Phase[] = [];
  for (const [name, time] of marks) {
    if (previous === undefined || time === undefined) continue;
    phases.push({ name, seconds: Math.max(0, (time - previous) / 1000) });
    previous = time;
  }
  return phases;
}

export function TestDetailPage({ namespace, name }: { namespace: string; name: string }) {
  const test = useLoad(
    async () =>
      unwrap(await api.GET('/api/v1/tests/{name}', { params: { path: { name }, query: { namespace } } })),
    [namespace, name],
  );
  const reports = useLoad(
    // Every report the test keeps (historyLimit is at most 1,000), not just the API's default 30 days.
    async () =>
      unwrap(
        await api.GET('/api/v1/reports', {
          params: { query: { test: name, namespace, days: 3650, limit: 1000 } },
        }),
      ),
    [namespace, name],
  );
  const license = useLoad(async () => unwrap(await api.GET('/api/v1/license')), []);
  const [deleting, setDeleting] = useState(false);
  return (
    <Async state={test}>
      {(t) => (
        <>
          <PageHeader title={t.name}>
            <TriggerButton test={t} onFinished={() => (test.reload(), reports.reload())} />
            <a class="button" href={href('edit-test', t.namespace, t.name)}>
              Edit
            </a>
            <button type="button" class="danger" onClick={() => setDeleting(true)}>
              Delete
            </button>
            {license.data?.features.includes('pdfReports') ? (
              <a
                class="button"
                href={downloadUrl(`/api/restore-tests/${encodeURIComponent(t.name)}/report.pdf`, {
                  namespace: t.namespace,
                  period: 90,
                })}
              >
                Test report PDF
              </a>
            ) : null}
          </PageHeader>
          {deleting ? (
            <DeleteDialog
              test={t}
              onClose={() => setDeleting(false)}
              onDeleted={() => navigate(href('tests'))}
            />
          ) : null}
          <section class="cards compact">
            <Card label="Namespace" value={t.namespace} />
            <Card label="Phase" value={t.phase} />
            <Card
              label="Last score"
              value={t.lastResult ? `${t.lastScore} (${t.lastResult})` : 'never run'}
              tone={resultClass(t.lastResult)}
              testId="detail-last-score"
            />
            <Card label="Schedule" value={<Schedule test={t} />} testId="detail-schedule" />
            <Card label="RTO target" value={t.rtoTarget || 'none'} />
            <Card label="RPO target" value={t.rpoTarget || 'none'} />
            <Card label="Next run" value={!t.nextRunAt && t.onBackup ? 'on next backup' : dateTime(t.nextRunAt)} />
            <SubsetCard test={t} />
          </section>
          <PreflightPanel test={t} />
          <Async state={reports}>{(list) => <Runs reports={list} />}</Async>
          <TestYaml test={t} />
        </>
      )}
    </Async>
  );
}

/** What part of the backup the test restores (issue 32); nothing when it restores whole namespaces. */
function SubsetCard({ test }: { test: TestResponse }) {
  const text = restoredSubsetText(test.labelSelector, test.includedResources);
  return text ? <Card label="Restored subset" value={text} testId="detail-subset" /> : null;
}

function Runs({ reports }: { reports: Report[] }) {
  const latest = reports[0];
  if (!latest) return <p class="panel muted">No runs yet: the first report appears after the first run.</p>;
  const oldestFirst = [...reports].reverse();
  return (
    <>
      <LatestRun report={latest} previous={reports[1]} />
      {latest.spec.result !== 'pass' ? (
        <DiagnosisPanel
          namespace={latest.spec.testRef.namespace}
          name={latest.spec.testRef.name}
          runId={latest.spec.runId}
        />
      ) : null}
      <section class="panel">
        <h2 data-testid="history-title">
          History ({reports.length} {reports.length === 1 ? 'run' : 'runs'})
        </h2>
        <div class="grid two">
          <History values={oldestFirst.map((r) => r.spec.score)} label="Score" max={100} />
          <History
            values={oldestFirst.map((r) => r.spec.rto.measuredSeconds ?? seconds(r.spec.rto.measured))}
            label="RTO"
            unit="s"
          />
        </div>
      </section>
    </>
  );
}

function LatestRun({ report, previous }: { report: Report; previous: Report | undefined }) {
  const s = report.spec;
  const verdict = useLoad<Verdict>(async () => {
    const published = unwrap(await api.GET('/api/v1/evidence/keys'));
    const keys = await importKeys(published.map((k) => k.publicKeyPem));
    return verifyReport(report, keys, previous);
  }, [report.metadata.name]);
  return (
    <>
      <section class="panel">
        <div class="panel-head">
          <h2>
            Latest run <span class="muted">{report.metadata.name}</span>
          </h2>
          <Badge tone={resultClass(s.result)}>
            <span data-testid="latest-score">{s.score}</span> {s.result}
          </Badge>
        </div>
        <p class="muted">
          {s.trigger === 'manual' ? 'Triggered by hand' : 'Scheduled'}, started {dateTime(s.startedAt)},
          completed {dateTime(s.completedAt)}. Backup {s.backup.name} ({s.backup.provider}
          {s.backup.age ? `, ${s.backup.age} old` : ''}).
        </p>
        {s.failure ? (
          <p class="bad" role="note">
            {s.failure.reason}: {s.failure.message}
          </p>
        ) : null}
        {s.resultCap ? (
          <p class="warn" data-testid="result-cap">
            Result capped at {s.resultCap.result} by{' '}
            {s.resultCap.critical ? 'the critical check' : 'the check'} <strong>{s.resultCap.check}</strong>{' '}
            (the score alone would allow more).
          </p>
        ) : null}
        <h3>Score by level</h3>
        <table class="levels">
          <tbody>
            {s.levels.map((l) => (
              <tr key={l.name}>
                <th scope="row">{LEVEL_NAMES[l.name] ?? l.name}</th>
                <td class="meter-cell">
                  <meter
                    min={0}
                    max={l.maxPoints}
                    value={l.points}
                    aria-label={`${LEVEL_NAMES[l.name]}: ${l.points} of ${l.maxPoints}`}
                  />
                </td>
                <td>{l.tested ? `${l.points} / ${l.maxPoints}` : 'not tested'}</td>
                <td class="muted">{l.detail}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <h3>RTO {s.rto.measured ?? ''}</h3>
        <RtoBar phases={phasesOf(report)} targetSeconds={s.rto.target ? seconds(s.rto.target) : undefined} />
        {s.rto.withinSLA === false ? <p class="bad">The RTO exceeded the SLA target.</p> : null}
        <RecoveryPoint report={report} />
      </section>
      <section class="panel">
        <h2>Checks</h2>
        {s.checks.length === 0 ? (
          <p class="muted">No checks ran.</p>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>Check</th>
                  <th>Kind</th>
                  <th>Status</th>
                  <th>Message</th>
                  <th>Duration</th>
                </tr>
              </thead>
              <tbody>
                {s.checks.map((c) => (
                  <tr key={c.name}>
                    <td>{c.name}</td>
                    <td>{c.kind}</td>
                    <td>
                      <Badge tone={c.status === 'pass' ? 'ok' : c.status === 'skip' ? 'muted' : 'bad'}>
                        {c.status}
                      </Badge>
                    </td>
                    <td class="message">{c.message}</td>
                    <td>{c.duration}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <section class="panel">
        <h2>Evidence and sandbox</h2>
        <div data-testid="evidence-verdict">
          <Async state={verdict}>
            {(v) =>
              v.ok ? (
                <p class="ok">
                  ✔ Signature verified (key {s.evidence?.keyId}); linked to the previous report.
                </p>
              ) : (
                <div class="bad">
                  <p>✘ Evidence does not verify:</p>
                  <ul>
                    {v.problems.map((p) => (
                      <li key={p}>{p}</li>
                    ))}
                  </ul>
                </div>
              )
            }
          </Async>
        </div>
        <p data-testid="sandbox-kept">
          Sandbox: {s.sandboxNamespaces.join(', ') || '—'}.{' '}
          {s.sandboxNamespaces.length === 0
            ? null
            : s.result === 'pass'
              ? 'Deleted when the run passed.'
              : s.sandboxExpiresAt
                ? `Kept for inspection until ${dateTime(s.sandboxExpiresAt)}${Date.parse(s.sandboxExpiresAt) <= Date.now() ? ' (expired: the janitor removes it)' : ''}.`
                : "Kept for inspection until the test's ttl after the run started."}
        </p>
        <h3>Completeness</h3>
        <ul class="plain">
          {s.completeness.map((k) => (
            <li key={k.kind}>
              {k.kind}: {k.restored} / {k.backedUp}
            </li>
          ))}
        </ul>
        {s.podSecurity ? (
          <p data-testid="pod-security">
            Pod Security enforced:{' '}
            {s.podSecurity.namespaces
              .map((n) => `${n.source} → ${n.level}${n.sourceLevel ? ` (source: ${n.sourceLevel})` : ''}`)
              .join('; ')}{' '}
            (floor {s.podSecurity.floor}).
          </p>
        ) : null}
        {s.transforms ? <Transforms transforms={s.transforms} /> : null}
      </section>
    </>
  );
}

/** What the restore transforms did (docs/restore-transforms.md): each object, or "*" for every one a tool does not name. */
function Transforms({ transforms }: { transforms: NonNullable<Report['spec']['transforms']> }) {
  return (
    <>
      <h3>Restore transforms</h3>
      {transforms.removedDefaults?.length ? (
        <p class="bad">Default transforms removed for this test: {transforms.removedDefaults.join(', ')}.</p>
      ) : null}
      {transforms.applied.length === 0 ? (
        <p class="muted">Nothing in the backup needed a change.</p>
      ) : (
        <div class="table-wrap">
          <table data-testid="transforms">
            <thead>
              <tr>
                <th>Transform</th>
                <th>Kind</th>
                <th>Object</th>
                <th>Change</th>
              </tr>
            </thead>
            <tbody>
              {transforms.applied.map((t) => (
                <tr key={`${t.transform} ${t.kind} ${t.namespace} ${t.name}`}>
                  <td>{t.transform}</td>
                  <td>{t.kind}</td>
                  <td>{t.name === '*' ? 'every one' : `${t.namespace}/${t.name}`}</td>
                  <td class="message">{t.change}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {transforms.more ? <p class="muted">…and {transforms.more} more (kubectl restoretest reports -o yaml).</p> : null}
    </>
  );
}
