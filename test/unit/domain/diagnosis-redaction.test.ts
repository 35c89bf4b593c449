// A reader who may not read the source namespaces gets the diagnosis without the restored
// application's own text (issue 26): states, reasons, counts, names and hints stay.
import { describe, expect, it } from '@jest/globals';
import { diagnose } from '../../../server/domain/diagnosis/diagnosis.js';
import { redactDiagnosis } from '../../../server/domain/diagnosis/redaction.js';

const SECRET = 'password=hunter2 card 4111-1111-1111-1111';

describe('redactDiagnosis', () => {
  const diagnosis = diagnose(
    {
      sandboxes: [{ source: 'payroll', sandbox: 'rehearsal-payroll-x1y2z' }],
      pods: [
        {
          namespace: 'rehearsal-payroll-x1y2z',
          name: 'api-1',
          phase: 'Running',
          ready: false,
          imagePullSecrets: [],
          containers: [{ name: 'api', ready: false, restartCount: 3, state: 'waiting', reason: 'CrashLoopBackOff', message: SECRET }],
        },
      ],
      events: [{ namespace: 'rehearsal-payroll-x1y2z', reason: 'BackOff', message: SECRET, object: 'Pod/api-1', count: 3, lastSeen: '' }],
      claims: [],
      externalNames: [],
      missingPullSecrets: [],
      logs: [{ namespace: 'rehearsal-payroll-x1y2z', pod: 'api-1', container: 'api', lines: [SECRET, 'bye'] }],
    },
    { test: { name: 'payroll', namespace: 'team-a' }, runId: 'x1y2z', report: 'payroll-x1y2z', result: 'fail', collectedAt: new Date(0) },
  );

  it('leaves out log lines, event and container messages, and says so', () => {
    const redacted = redactDiagnosis(diagnosis, ['payroll']);
    expect(JSON.stringify(redacted)).not.toContain('hunter2');
    expect(redacted.redacted).toBe(true);
    expect(redacted.logsNote).toBe(
      '2 log lines hidden, like the event and container messages: they are the restored application\'s own text, shown only to users who may get secrets in "payroll"',
    );
  });

  it('keeps what helps without it: states, reasons, counts, names, hints', () => {
    const redacted = redactDiagnosis(diagnosis, ['payroll']);
    expect(redacted.hints).toEqual(diagnosis.hints);
    expect(redacted.pods[0]!.containers[0]).toEqual({ name: 'api', ready: false, restartCount: 3, state: 'waiting', reason: 'CrashLoopBackOff' });
    expect(redacted.events[0]).toMatchObject({ reason: 'BackOff', object: 'Pod/api-1', count: 3 });
    expect(redacted.logs[0]).toMatchObject({ pod: 'api-1', container: 'api', lines: [] });
  });
});
