// spec.logCollection (issue 30): which logs a diagnosis reads, its defaults and validation, the
// byte bounds with their truncation marker, and the secret scrubbing every kept line goes through.
import { describe, expect, it } from '@jest/globals';
import { diagnose } from '../../../server/domain/diagnosis/diagnosis.js';
import { boundLogs, MAX_LINE_LENGTH, MAX_LOG_BYTES_PER_CONTAINER, MAX_LOG_BYTES_PER_RUN } from '../../../server/domain/diagnosis/log-bounds.js';
import { selectLogSources, type LoggablePod } from '../../../server/domain/diagnosis/log-selection.js';
import type { ContainerLog, SandboxObservation } from '../../../server/domain/diagnosis/observation.js';
import { REDACTED, scrubLines, scrubText } from '../../../server/domain/diagnosis/secret-scrub.js';
import { resolveLogCollection, type LogCollectionSettings } from '../../../server/domain/run/log-collection.js';
import { validateLogCollectionInput } from '../../../server/domain/test-spec/log-collection-input.js';
import { inputToSpec, validateTestInput } from '../../../server/domain/test-spec/test-input.js';

const SANDBOX = 'rehearsal-shop-x1y2z';
const DEFAULTS = resolveLogCollection(undefined);

function settings(changes: Partial<LogCollectionSettings> = {}): LogCollectionSettings {
  return { ...DEFAULTS, ...changes };
}

// A crash-looping web Pod with a completed init container, and a Ready api Pod with a sidecar.
const pods: LoggablePod[] = [
  {
    namespace: SANDBOX,
    name: 'web-1',
    ready: false,
    containers: [
      { name: 'migrate', init: true, ready: true, restartCount: 0, started: true },
      { name: 'web', init: false, ready: false, restartCount: 4, started: true },
      { name: 'proxy', init: false, ready: true, restartCount: 0, started: true },
    ],
  },
  {
    namespace: SANDBOX,
    name: 'api-1',
    ready: true,
    containers: [
      { name: 'api', init: false, ready: true, restartCount: 1, started: true },
      { name: 'never-ran', init: false, ready: false, restartCount: 0, started: false },
    ],
  },
];

const describeSource = (source: { pod: string; container: string; init: boolean; previous: boolean }) =>
  `${source.pod}/${source.container}${source.init ? ' init' : ''}${source.previous ? ' previous' : ''}`;

describe('defaults', () => {
  it('are 100 lines of the failing containers, with init containers, previous instances and events', () => {
    expect(resolveLogCollection(undefined)).toEqual({ lines: 100, containers: 'failing', initContainers: true, previous: true, events: true });
    expect(resolveLogCollection({ lines: 5, previous: false })).toEqual({ lines: 5, containers: 'failing', initContainers: true, previous: false, events: true });
  });

  it('are not written by the API: only the fields given are (the CRD fills in the rest; a test without the block gets them at collection)', () => {
    const base = { name: 'shop', provider: 'velero', sourceNamespaces: ['shop'], cron: '@daily' };
    const omitted = validateTestInput(base);
    expect(omitted.ok && inputToSpec(omitted.value).logCollection).toBeUndefined();
    const given = validateTestInput({ ...base, logCollection: { lines: 250, containers: 'all', events: null } });
    expect(given.ok && inputToSpec(given.value).logCollection).toEqual({ lines: 250, containers: 'all' });
  });
});

describe('validation names the field', () => {
  const errors = (value: unknown) => validateLogCollectionInput(value).errors;

  it.each([
    [{ lines: 0 }, 'logCollection.lines', 'must be between 1 and 1000'],
    [{ lines: 1001 }, 'logCollection.lines', 'must be between 1 and 1000'],
    [{ lines: 2.5 }, 'logCollection.lines', 'must be an integer'],
    [{ containers: 'crashing' }, 'logCollection.containers', 'must be one of failing, all'],
    [{ initContainers: 'yes' }, 'logCollection.initContainers', 'must be a boolean'],
    [{ previous: 1 }, 'logCollection.previous', 'must be a boolean'],
    [{ events: 'no' }, 'logCollection.events', 'must be a boolean'],
    [{ tail: 10 }, 'logCollection.tail', 'is not a known field'],
    [null, 'logCollection', expect.stringContaining('must be an object')],
    [[1], 'logCollection', expect.stringContaining('must be an object')],
  ])('%j → %s', (value, field, message) => {
    expect(errors(value)).toEqual([{ field, message }]);
  });

  it('lists every offending field at once, through validateTestInput too', () => {
    const result = validateTestInput({
      name: 'shop',
      provider: 'velero',
      sourceNamespaces: ['shop'],
      cron: '@daily',
      logCollection: { lines: 0, containers: 'x' },
    });
    expect(result.ok ? [] : result.errors.map((error) => error.field)).toEqual(['logCollection.lines', 'logCollection.containers']);
  });

  it('accepts the bounds themselves', () => {
    expect(validateLogCollectionInput({ lines: 1 })).toEqual({ spec: { lines: 1 }, errors: [] });
    expect(validateLogCollectionInput({ lines: 1000 })).toEqual({ spec: { lines: 1000 }, errors: [] });
  });
});

describe('selectLogSources', () => {
  it('failing (default): the not-Ready containers of not-Ready Pods, their init containers, previous instances', () => {
    expect(selectLogSources(pods, settings()).map(describeSource)).toEqual([
      'web-1/migrate init',
      'web-1/web',
      'web-1/web previous',
    ]);
  });

  it('all: every container of every Pod, a never-started one without a current log', () => {
    expect(selectLogSources(pods, settings({ containers: 'all' })).map(describeSource)).toEqual([
      'web-1/migrate init',
      'web-1/web',
      'web-1/web previous',
      'web-1/proxy',
      'api-1/api',
      'api-1/api previous',
    ]);
  });

  it('initContainers: false leaves the init containers out', () => {
    expect(selectLogSources(pods, settings({ initContainers: false })).map(describeSource)).toEqual(['web-1/web', 'web-1/web previous']);
  });

  it('previous: false reads only the current instances', () => {
    expect(selectLogSources(pods, settings({ containers: 'all', previous: false })).map(describeSource)).toEqual([
      'web-1/migrate init',
      'web-1/web',
      'web-1/proxy',
      'api-1/api',
    ]);
  });

  it('reads an init container that keeps failing (the Pod never started its app) with its previous instance', () => {
    const stuck: LoggablePod = {
      namespace: SANDBOX,
      name: 'db-0',
      ready: false,
      containers: [
        { name: 'restore-schema', init: true, ready: false, restartCount: 2, started: true },
        { name: 'db', init: false, ready: false, restartCount: 0, started: false },
      ],
    };
    expect(selectLogSources([stuck], settings()).map(describeSource)).toEqual(['db-0/restore-schema init', 'db-0/restore-schema init previous']);
  });
});

function log(lines: string[], changes: Partial<ContainerLog> = {}): ContainerLog {
  return { namespace: SANDBOX, pod: 'web-1', container: 'web', lines, ...changes };
}

const bytesOf = (lines: string[]) => lines.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);

describe('boundLogs', () => {
  it('keeps the last `lines` lines and marks nothing when they fit', () => {
    const [kept] = boundLogs([log(['a', 'b', 'c', 'd'])], 2);
    expect(kept).toEqual(log(['c', 'd']));
  });

  it('cuts a container log to its byte bound, newest lines kept, and counts what it left out', () => {
    const lines = Array.from({ length: 1000 }, (_, index) => `${String(index).padStart(4, '0')} ${'x'.repeat(95)}`);
    const [kept] = boundLogs([log(lines)], 1000);
    expect(bytesOf(kept!.lines)).toBeLessThanOrEqual(MAX_LOG_BYTES_PER_CONTAINER);
    expect(bytesOf(kept!.lines)).toBeGreaterThan(MAX_LOG_BYTES_PER_CONTAINER - 101);
    expect(kept!.lines.at(-1)!.startsWith('0999 ')).toBe(true);
    expect(kept!.truncated).toBe(true);
    expect(kept!.omittedLines).toBe(1000 - kept!.lines.length);
  });

  it('bounds the run: later logs get what is left, then nothing (still listed, with the count)', () => {
    const lines = Array.from({ length: 1000 }, (_, index) => `${index} ${'y'.repeat(200)}`);
    const logs = Array.from({ length: 6 }, (_, index) => log(lines, { pod: `web-${index}` }));
    const kept = boundLogs(logs, 1000);
    expect(bytesOf(kept.flatMap((entry) => entry.lines))).toBeLessThanOrEqual(MAX_LOG_BYTES_PER_RUN);
    // Four logs nearly fill 64 KiB: the fifth gets the few lines left, the sixth none.
    expect(kept.map((entry) => entry.lines.length > 0)).toEqual([true, true, true, true, true, false]);
    expect(kept[4]!.lines.length).toBeLessThan(kept[0]!.lines.length);
    expect(kept[4]!.lines.at(-1)!.startsWith('999 ')).toBe(true);
    expect(kept[5]).toMatchObject({ pod: 'web-5', lines: [], truncated: true, omittedLines: 1000 });
  });

  it('clips a long line and keeps a log the kubelet cut marked as truncated', () => {
    const [kept] = boundLogs([log(['z'.repeat(5000)], { truncated: true })], 100);
    expect(kept!.lines[0]!.length).toBe(MAX_LINE_LENGTH);
    expect(kept!.lines[0]!.endsWith('…')).toBe(true);
    expect(kept!.truncated).toBe(true);
    expect(kept!.omittedLines).toBeUndefined();
  });

  it('honours smaller limits given to it', () => {
    const [kept] = boundLogs([log(['aaaa', 'bbbb', 'cccc'])], 100, { perContainer: 10, perRun: 100 });
    expect(kept).toEqual(log(['bbbb', 'cccc'], { truncated: true, omittedLines: 1 }));
  });
});

describe('secret scrubbing', () => {
  it.each([
    ['password=hunter2 user=bob', `password=${REDACTED} user=bob`],
    ['DB_PASSWORD: "s3cr3t"', `DB_PASSWORD: "${REDACTED}"`],
    ['{"apiKey":"abc123","user":"bob"}', `{"apiKey":"${REDACTED}","user":"bob"}`],
    ['client_secret=xyz&grant=code', `client_secret=${REDACTED}&grant=code`],
    ['connecting to postgres://app:s3cret@db:5432/shop', `connecting to postgres://app:${REDACTED}@db:5432/shop`],
    ['Authorization: Bearer abcdef123456', `Authorization: ${REDACTED} ${REDACTED}`],
    ['token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl here', `token ${REDACTED} here`],
    ['aws AKIAABCDEFGHIJKLMNOP', `aws ${REDACTED}`],
    ['gh ghp_abcdefghijklmnopqrstuvwxyz0123456789', `gh ${REDACTED}`],
    ['listening on :8080', 'listening on :8080'],
    ['author=alice tokens left: 5', 'author=alice tokens left: 5'],
    ['AUTH_TOKEN=abc123', `AUTH_TOKEN=${REDACTED}`],
  ])('%s', (line, expected) => {
    expect(scrubText(line)).toBe(expected);
  });

  // The text is the restored application's, read on the leader: a pattern with an unbounded run
  // before a fixed part took a second for 20 KB of letters and minutes for a 1 MiB line (the
  // kubelet read's bound). Linear now; the bound below is two orders above what it takes here.
  it.each([
    ['letters', 'a'.repeat(1 << 20)],
    ['secret words with no separator', 'password'.repeat(1 << 17)],
    ['a scheme without credentials', `x://${'a'.repeat(1 << 20)}`],
    ['a secret word before a long blank', `password${' '.repeat(1 << 20)}=x`],
  ])('a hostile 1 MiB line (%s) is scrubbed in linear time', (_name, line) => {
    const started = performance.now();
    scrubText(line);
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('hides every line of a PEM private key', () => {
    expect(scrubLines(['start', '-----BEGIN RSA PRIVATE KEY-----', 'MIIEow', 'AKCAQ', '-----END RSA PRIVATE KEY-----', 'after password=x'])).toEqual([
      'start',
      REDACTED,
      REDACTED,
      REDACTED,
      REDACTED,
      `after password=${REDACTED}`,
    ]);
  });

  it('every log line, event message and container message of a diagnosis goes through it', () => {
    const secret = 'hunter2';
    const lines = Array.from({ length: 50 }, (_, index) => `line ${index} password=${secret}`);
    const observation: SandboxObservation = {
      sandboxes: [{ source: 'shop', sandbox: SANDBOX }],
      pods: [
        {
          namespace: SANDBOX,
          name: 'web-1',
          phase: 'Running',
          ready: false,
          imagePullSecrets: [],
          containers: [{ name: 'web', ready: false, restartCount: 3, state: 'terminated', reason: 'Error', exitCode: 1, message: `fatal: password=${secret}` }],
        },
      ],
      events: [{ namespace: SANDBOX, reason: 'BackOff', message: `token=${secret}`, object: 'Pod/web-1', count: 1, lastSeen: '' }],
      claims: [],
      externalNames: [],
      missingPullSecrets: [],
      logs: [log(lines), log(lines, { container: 'migrate', init: true }), log(lines, { previous: true })],
    };
    const diagnosis = diagnose(observation, {
      test: { name: 'shop', namespace: 'team-a' },
      runId: 'x1y2z',
      report: 'shop-x1y2z',
      result: 'fail',
      collectedAt: new Date('2026-03-15T12:00:00Z'),
    });
    expect(JSON.stringify(diagnosis)).not.toContain(secret);
    expect(diagnosis.logs.flatMap((entry) => entry.lines)).toHaveLength(150);
    expect(diagnosis.logs.every((entry) => entry.lines.every((line) => line.endsWith(`password=${REDACTED}`)))).toBe(true);
    expect(diagnosis.logs.map((entry) => [entry.container, entry.init ?? false, entry.previous ?? false])).toEqual([
      ['web', false, false],
      ['migrate', true, false],
      ['web', false, true],
    ]);
    expect(diagnosis.logCollection).toEqual(DEFAULTS);
  });

  it('events: false keeps the events out of the diagnosis but not out of the hints', () => {
    const observation: SandboxObservation = {
      sandboxes: [{ source: 'shop', sandbox: SANDBOX }],
      pods: [],
      events: [{ namespace: SANDBOX, reason: 'FailedCreate', message: 'exceeded quota: rehearsal-sandbox, requested: pods=1', object: 'ReplicaSet/web', count: 1, lastSeen: '' }],
      claims: [],
      externalNames: [],
      missingPullSecrets: [],
      logs: [],
    };
    const context = { test: { name: 'shop', namespace: 'team-a' }, runId: 'x1y2z', report: 'shop-x1y2z', result: 'fail', collectedAt: new Date() };
    const withEvents = diagnose(observation, context);
    const without = diagnose(observation, { ...context, logCollection: settings({ events: false }) });
    expect(withEvents.events).toHaveLength(1);
    expect(without.events).toEqual([]);
    expect(without.hints.map((hint) => hint.code)).toEqual(['quota-exceeded']);
    expect(without.hints).toEqual(withEvents.hints);
  });
});
