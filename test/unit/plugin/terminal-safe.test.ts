// Text a restored application wrote reaches the operator's terminal through `kubectl restoretest
// diagnose` (log lines, event and container messages) and every other printer: its control
// sequences are shown, never obeyed (issue 26). The plugin's own colours and progress line stay.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { terminalSafe } from '../../../cmd/kubectl-restoretest/output/terminal-text.js';
import { FakeApi, fixture } from './support/fake-api.js';
import { runPlugin } from './support/run-plugin.js';

// What a hostile log line or event message can carry: clear the screen, set the window title
// (OSC), an 8-bit CSI (C1), a carriage return that overwrites the line, a bell, a bidi override.
const HOSTILE = [
  '\u001b[2J\u001b[H',
  '\u001b]0;pwned\u0007',
  '\u009b31m',
  'ok\rall checks passed',
  '\u202eevil\u202c',
  '\u001b[8mhidden\u001b[0m',
];
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
// The colours the plugin prints result words in pass as they are, from any text (a cosmetic
// allowance: reset, red, green, yellow); nothing else does.
// eslint-disable-next-line no-control-regex
const withoutOwnColours = (text: string) => text.replace(/\u001b\[(?:0|31|32|33)m/g, '');

describe('terminalSafe', () => {
  it('makes every control sequence it did not write visible', () => {
    for (const text of HOSTILE) expect(withoutOwnColours(terminalSafe(text))).not.toMatch(CONTROL);
    expect(terminalSafe('\u001b]0;pwned\u0007')).toBe('\\u001b]0;pwned\\u0007');
    expect(terminalSafe('a\u009bb')).toBe('a\\u009bb');
  });

  it("keeps newlines, tabs, the plugin's colours and the progress line's prefix", () => {
    expect(terminalSafe('a\tb\n')).toBe('a\tb\n');
    expect(terminalSafe('\u001b[32mpass\u001b[0m')).toBe('\u001b[32mpass\u001b[0m');
    expect(terminalSafe('\r\u001b[2K⠋ run: Restoring (3s)')).toBe('\r\u001b[2K⠋ run: Restoring (3s)');
    // ...but not the same prefix later in the text, nor another SGR.
    expect(terminalSafe('x\r\u001b[2Ky')).toBe('x\\u000d\\u001b[2Ky');
    expect(terminalSafe('\u001b[8m')).toBe('\\u001b[8m');
  });
});

describe('kubectl restoretest diagnose with a restored application\'s hostile text', () => {
  let fake: FakeApi;

  beforeAll(async () => {
    fake = await FakeApi.start();
    const diagnosis = fixture<{
      pods: { containers: { message?: string }[] }[];
      events: { message: string; reason: string }[];
      logs: { lines: string[] }[];
      hints: { objects: string[] }[];
    }>('diagnosis');
    diagnosis.pods[0]!.containers[0]!.message = HOSTILE.join(' ');
    diagnosis.events[0]!.message = `line one\nline two ${HOSTILE.join(' ')}`;
    diagnosis.events[0]!.reason = '\u001b[2JBackOff';
    // Every log (init, current, previous instance) carries the hostile text.
    if (diagnosis.logs.length > 0) for (const log of diagnosis.logs) log.lines = HOSTILE;
    else diagnosis.logs = [{ namespace: 'sandbox', pod: 'web-1', container: 'web', lines: HOSTILE } as never];
    diagnosis.hints[0]!.objects = ['Pod/x/\u001b]0;title\u0007'];
    fake.on('GET', '/api/v1/tests/{name}/diagnosis', () => ({ status: 200, body: diagnosis }));
  });

  afterAll(async () => {
    await fake.close();
  });

  it('prints every line without a control sequence, and each message on one table line', async () => {
    const result = await runPlugin(['diagnose', 'payments', '--server', fake.url, '--token', 't']);
    expect(result.code).toBe(0);
    expect(withoutOwnColours(result.stdout)).not.toMatch(CONTROL);
    expect(result.stdout).toContain('\\u001b]0;pwned\\u0007');
    expect(result.stdout).toContain('line one line two');
    // -o json keeps the data (JSON escapes), still nothing a terminal obeys.
    const json = await runPlugin(['diagnose', 'payments', '-o', 'json', '--server', fake.url, '--token', 't']);
    expect(withoutOwnColours(json.stdout)).not.toMatch(CONTROL);
    expect((JSON.parse(json.stdout) as { logs: { lines: string[] }[] }).logs.at(-1)!.lines).toEqual(HOSTILE);
  });
});
