// The pre-flight check of a test's newest backup (issue 32, decision 0021): checked when the backup
// completed, without restoring it. Shown on the test page so a backup that would not restore is
// seen before the next rehearsal; nothing when the tool has no pre-flight (Kasten, Trilio) or none ran yet.
import type { TestResponse } from '../format.js';
import { dateTime } from '../format.js';
import { Badge } from './ui.js';

const TONES: Record<string, string> = { passed: 'ok', failed: 'bad', error: 'warn' };

export function PreflightPanel({ test }: { test: TestResponse }) {
  const preflight = test.preflight;
  if (!preflight) return null;
  return (
    <section class="panel" data-testid="preflight">
      <h2>
        Pre-flight of the newest backup <Badge tone={TONES[preflight.result] ?? 'muted'}>{preflight.result}</Badge>
      </h2>
      <p class="muted">
        Backup {preflight.backupName}, checked {dateTime(preflight.checkedAt)} without restoring it: {preflight.summary}
      </p>
      {preflight.problems.length > 0 ? (
        <ul data-testid="preflight-problems">
          {preflight.problems.map((problem) => (
            <li key={`${problem.check} ${problem.message}`}>
              <strong>{problem.severity === 'error' ? 'Error' : 'Warning'}</strong> ({problem.check}): {problem.message}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
