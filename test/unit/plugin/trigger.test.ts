// trigger and trigger --wait: the run is followed through the API (phase, lastRunAt, the latest
// report) with live stages from the RestoreTest's status.currentRun when the kubeconfig can read
// it; the exit code is 0 on pass, 3 on partial/fail, 1 on errors and timeouts.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { components } from '../../../openapi/client.js';
import { FakeApi, fixture, problem } from './support/fake-api.js';
import { expectGolden } from './support/golden.js';
import { runPlugin, writeKubeconfig } from './support/run-plugin.js';

type Report = components['schemas']['RestoreReportResource'];
type Test = components['schemas']['TestResponse'];

let fake: FakeApi;
let kubeconfig: string;
const CR_PATH = '/apis/rehearsal.dev/v1alpha1/namespaces/rehearsal-system/restoretests/payments';
const FINISHED_AT = '2026-03-15T12:00:07Z';

beforeAll(async () => {
  fake = await FakeApi.start();
  kubeconfig = writeKubeconfig(fake.url, { token: 'jane-token' });
});

afterAll(async () => {
  await fake.close();
});

afterEach(async () => {
  expect(fake.problems).toEqual([]);
  await fake.close();
  fake = await FakeApi.start();
  kubeconfig = writeKubeconfig(fake.url, { token: 'jane-token' });
});

function newReport(result: 'pass' | 'fail'): Report {
  const base = fixture<Report[]>('reports').find((report) => report.metadata.name === 'payments-7f3a2c')!;
  const report: Report = structuredClone(base);
  report.metadata.name = 'payments-c0ffee';
  report.spec.runId = 'c0ffee';
  report.spec.trigger = 'manual';
  report.spec.scheduledAt = '2026-03-15T12:00:00Z';
  report.spec.startedAt = '2026-03-15T12:00:00Z';
  report.spec.completedAt = FINISHED_AT;
  report.spec.sandboxNamespaces = ['rehearsal-payments-c0ffee'];
  report.spec.rto = { ...report.spec.rto, measured: '6s', measuredSeconds: 6 };
  if (result === 'fail') {
    report.spec.score = 0;
    report.spec.result = 'fail';
    report.spec.checks = [];
    delete report.spec.rpo; // no check ran, so nothing measured the restored data's age
    report.spec.levels = report.spec.levels.map((level) => ({ ...level, points: 0, tested: false, detail: 'not tested: the restore failed' }));
    report.spec.restore = { namespace: 'velero', name: 'rehearsal-payments-c0ffee', phase: 'Failed', warnings: 0, errors: 3 };
    report.spec.rto = { target: '15m', phases: { restoreRequestedAt: '2026-03-15T12:00:01Z' } };
    report.spec.failure = { reason: 'RestoreFailed', message: 'the Velero Restore rehearsal-payments-c0ffee ended Failed' };
  }
  return report;
}

const STAGES: object[] = [
  { handledTrigger: 'req-1', currentRun: { id: 'c0ffee', stage: 'Queued' } },
  { handledTrigger: 'req-1', currentRun: { id: 'c0ffee', stage: 'Preparing', sandboxNamespaces: [{ source: 'payments', sandbox: 'rehearsal-payments-c0ffee' }] } },
  {
    handledTrigger: 'req-1',
    currentRun: { id: 'c0ffee', stage: 'Restoring', backup: { name: 'nightly-20260315010000' }, sandboxNamespaces: [{ source: 'payments', sandbox: 'rehearsal-payments-c0ffee' }] },
  },
  { handledTrigger: 'req-1', currentRun: { id: 'c0ffee', stage: 'Restoring', restoreCompletedAt: '2026-03-15T12:00:03Z', restorePhase: 'Completed' } },
  { handledTrigger: 'req-1', currentRun: { id: 'c0ffee', stage: 'Validating' } },
  { handledTrigger: 'req-1', currentRun: { id: 'c0ffee', stage: 'Validating', podsReadyAt: '2026-03-15T12:00:05Z' } },
  { handledTrigger: 'req-1', currentRun: { id: 'c0ffee', stage: 'Finalizing' } },
];

/** The API and the RestoreTest as a run of "payments" goes by: Running for `polls` reads, then done. */
function scriptRun(report: Report, options: { polls?: number; stages?: object[]; forbidCr?: boolean } = {}): void {
  const polls = options.polls ?? STAGES.length;
  const stages = options.stages ?? STAGES;
  const payments = fake.tests.find((test) => test.name === 'payments')!;
  let reads = 0;
  fake.on('GET', '/api/v1/tests/payments', () => {
    const index = reads++;
    const done = index >= polls;
    const body: Test = done
      ? { ...payments, phase: report.spec.result === 'fail' ? 'Failed' : 'Completed', lastScore: report.spec.score, lastResult: report.spec.result, lastRunAt: FINISHED_AT }
      : { ...payments, phase: 'Running' };
    return { status: 200, body };
  });
  fake.kubeObjects.set(CR_PATH, () =>
    options.forbidCr
      ? { status: 403, body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Forbidden', code: 403, message: 'forbidden' } }
      : { status: 200, body: { apiVersion: 'rehearsal.dev/v1alpha1', kind: 'RestoreTest', metadata: { name: 'payments' }, status: stages[Math.min(reads - 1, stages.length - 1)] } },
  );
  fake.reports.push(report);
}

describe('trigger', () => {
  it('starts a run and says so', async () => {
    const result = await runPlugin(['trigger', 'payments', '--server', fake.url]);
    expect(result).toEqual({ code: 0, stdout: 'restoretest.rehearsal.dev/payments triggered\n', stderr: '' });
    expect(fake.calls).toEqual(['POST /api/v1/tests/payments/trigger']);
  });

  it('says when the engine has not picked the trigger up yet', async () => {
    fake.on('POST', '/api/v1/tests/{name}/trigger', {
      status: 200,
      body: fake.tests.find((test) => test.name === 'payments'),
      headers: { 'Rehearsal-Trigger-State': 'pending', 'Rehearsal-Trigger-Request': 'req-9' },
    });
    const result = await runPlugin(['trigger', 'payments', '--server', fake.url]);
    expect(result.stdout).toBe('restoretest.rehearsal.dev/payments triggered (pending: the engine has not picked it up yet; it runs when it does)\n');
    const json = await runPlugin(['trigger', 'payments', '--server', fake.url, '-o', 'json']);
    expect(JSON.parse(json.stdout)).toEqual(fake.tests.find((test) => test.name === 'payments'));
  });

  it('exits 1 when a run is already in progress', async () => {
    fake.on(
      'POST',
      '/api/v1/tests/{name}/trigger',
      problem(409, 'run-in-progress', 'Run in progress', 'RestoreTest "payments" in namespace "rehearsal-system": a run is in progress.'),
    );
    const result = await runPlugin(['trigger', 'payments', '--wait', '--server', fake.url]);
    expect(result).toEqual({ code: 1, stdout: '', stderr: 'error: RestoreTest "payments" in namespace "rehearsal-system": a run is in progress.\n' });
  });
});

describe('trigger --wait', () => {
  it('follows the stages live and exits 0 on pass (golden)', async () => {
    scriptRun(newReport('pass'));
    const result = await runPlugin(['trigger', 'payments', '--wait', '--kubeconfig', kubeconfig]);
    expect(result.code).toBe(0);
    expectGolden('trigger-wait-pass', `$ kubectl restoretest trigger payments --wait\n--- stdout\n${result.stdout}--- stderr\n${result.stderr}`);
    expect(fake.calls.at(-1)).toBe('GET /api/v1/reports?test=payments&namespace=rehearsal-system&latest=true');
  });

  it('shows the score levels with -o wide (golden)', async () => {
    scriptRun(newReport('pass'), { polls: 1 });
    const result = await runPlugin(['trigger', 'payments', '--wait', '-o', 'wide', '--kubeconfig', kubeconfig]);
    expect(result.code).toBe(0);
    expectGolden('trigger-wait-wide', `$ kubectl restoretest trigger payments --wait -o wide\n${result.stdout}`);
  });

  it('exits 3 when the run fails, following the phase when only --server is known (golden)', async () => {
    scriptRun(newReport('fail'), { polls: 3 });
    const result = await runPlugin(['trigger', 'payments', '--wait', '--server', fake.url]);
    expect(result.code).toBe(3);
    expectGolden('trigger-wait-fail', `$ kubectl restoretest trigger payments --wait --server URL\n--- stdout\n${result.stdout}--- stderr\n${result.stderr}`);
  });

  it('prints the report itself with -o json / -o name', async () => {
    const report = newReport('pass');
    scriptRun(report, { polls: 2 });
    const json = await runPlugin(['trigger', 'payments', '--wait', '-o', 'json', '--server', fake.url]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(report);
    scriptRun(report, { polls: 0 });
    const name = await runPlugin(['trigger', 'payments', '--wait', '-o', 'name', '--server', fake.url]);
    expect(name.stdout).toBe('restorereport.rehearsal.dev/payments-c0ffee\n');
  });

  it('says once when it cannot read live stages, and goes on through the API', async () => {
    scriptRun(newReport('pass'), { polls: 3, forbidCr: true });
    const result = await runPlugin(['trigger', 'payments', '--wait', '--kubeconfig', kubeconfig]);
    expect(result.code).toBe(0);
    expect(result.stderr.split('\n').filter((line) => line.startsWith('note:'))).toEqual([
      'note: live stages unavailable (you need "get" on restoretests.rehearsal.dev in namespace rehearsal-system); following the phase through the API',
    ]);
  });

  it('rewrites one progress line on a terminal', async () => {
    scriptRun(newReport('pass'), { polls: 3 });
    const result = await runPlugin(['trigger', 'payments', '--wait', '--kubeconfig', kubeconfig], { stderrIsTTY: true });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('\r\u001b[2K| rehearsal-system/payments: queued: waiting for a free run slot (0s)');
    expect(result.stderr).toContain('\r\u001b[2K/ rehearsal-system/payments: preparing sandbox rehearsal-payments-c0ffee (1s)');
    expect(result.stderr.endsWith('\r\u001b[2K[3s] rehearsal-system/payments: finished: pass, score 100\n')).toBe(true);
  });

  it('gives up after --timeout with exit 1', async () => {
    scriptRun(newReport('pass'), { polls: 1_000 });
    const result = await runPlugin(['trigger', 'payments', '--wait', '--timeout', '5s', '--kubeconfig', kubeconfig]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n').slice(-3)).toEqual([
      'error: timed out after 5s waiting for the run of rehearsal-system/payments (last stage: pods ready; running health checks)',
      'hint: the run goes on; see its result later with: kubectl restoretest reports payments -n rehearsal-system --latest',
      '',
    ]);
  });
});
