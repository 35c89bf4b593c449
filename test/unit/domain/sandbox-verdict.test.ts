// The janitor's decision for one labelled namespace (decision 0009, issue 26): a table with a
// fixed clock. Orphans (their test deleted, or deleted and created again) go at their expiry and
// never before; anything whose labels and name disagree is never deleted.
import { describe, expect, it } from '@jest/globals';
import { judgeSandbox, type SandboxFacts, type SandboxOwner } from '../../../server/domain/run/sandbox-verdict.js';
import { isSandboxNameOfRun, sandboxNamespaceName } from '../../../server/domain/run/sandbox-names.js';

const NOW = new Date('2026-11-28T08:00:00Z');
const PAST = '2026-11-28T07:00:00.000Z';
const FUTURE = '2026-11-28T09:00:00.000Z';
const OWNER: SandboxOwner = { uid: 'uid-1', namespacePrefix: 'rehearsal', sourceCount: 1 };
const LABELS = {
  'rehearsal.dev/managed-by': 'rehearsal',
  'rehearsal.dev/test': 'payments',
  'rehearsal.dev/test-namespace': 'team-a',
  'rehearsal.dev/run': 'x7k2p',
};

function facts(overrides: Partial<SandboxFacts> = {}, expiresAt = PAST): SandboxFacts {
  return {
    name: 'rehearsal-payments-x7k2p',
    labels: LABELS,
    annotations: { 'rehearsal.dev/expires-at': expiresAt, 'rehearsal.dev/test-uid': 'uid-1' },
    deleting: false,
    ...overrides,
  };
}

describe('judgeSandbox', () => {
  it.each<[string, SandboxFacts, 'delete' | 'keep', string]>([
    ['orphan past its expiry', facts(), 'delete', 'orphaned'],
    ['orphan before its expiry', facts({}, FUTURE), 'keep', 'orphaned'],
    ['orphan exactly at its expiry', facts({}, NOW.toISOString()), 'delete', 'orphaned'],
    ['orphan without an expiry', facts({ annotations: {} }), 'keep', 'orphaned'],
    ['orphan with an unreadable expiry', facts({ annotations: { 'rehearsal.dev/expires-at': 'soon' } }), 'keep', 'orphaned'],
    ['orphan with a custom prefix', facts({ name: 'dr-payments-x7k2p' }), 'delete', 'orphaned'],
    ['orphan, second source', facts({ name: 'rehearsal-payments-x7k2p-1' }), 'delete', 'orphaned'],
    ['test created again (another uid)', facts({ owner: { ...OWNER, uid: 'uid-2' }, recorded: true }), 'delete', 'orphaned'],
    ['test created again, before expiry', facts({ owner: { ...OWNER, uid: 'uid-2' } }, FUTURE), 'keep', 'orphaned'],
    ['orphan whose name is another test', facts({ name: 'rehearsal-orders-x7k2p' }), 'keep', 'unrecognised'],
    ['orphan whose name is another run', facts({ name: 'rehearsal-payments-aaaaa' }), 'keep', 'unrecognised'],
    ['any name, labelled', facts({ name: 'team-c-prod' }), 'keep', 'unrecognised'],
    ['no managed-by label', facts({ labels: { ...LABELS, 'rehearsal.dev/managed-by': 'someone' } }), 'keep', 'unrecognised'],
    ['no test-namespace label', facts({ labels: { ...LABELS, 'rehearsal.dev/test-namespace': '' } }), 'keep', 'unrecognised'],
    ['run label not a run id', facts({ labels: { ...LABELS, 'rehearsal.dev/run': 'X' } }), 'keep', 'unrecognised'],
    ['already deleting', facts({ deleting: true }), 'keep', 'deleting'],
    ['test exists, run in progress', facts({ owner: { ...OWNER, currentRunId: 'x7k2p' }, recorded: true }), 'keep', 'in-use'],
    ['test exists, reported, expired', facts({ owner: OWNER, recorded: true }), 'delete', 'expired'],
    ['test exists, reported, not yet expired', facts({ owner: OWNER, recorded: true }, FUTURE), 'keep', 'kept'],
    ['test exists, no report lists it', facts({ owner: OWNER, recorded: false }), 'keep', 'unrecorded'],
    ['test exists, no test-uid annotation (older sandbox)', facts({ owner: OWNER, recorded: true, annotations: { 'rehearsal.dev/expires-at': PAST } }), 'delete', 'expired'],
    ['test exists, other prefix than the test', facts({ name: 'dr-payments-x7k2p', owner: OWNER, recorded: true }), 'keep', 'unrecognised'],
  ])('%s', (_case, input, action, reason) => {
    const verdict = judgeSandbox(input, NOW);
    expect([verdict.action, verdict.reason]).toEqual([action, reason]);
    expect(verdict.message).not.toBe('');
  });

  it('says when an orphan will go', () => {
    expect(judgeSandbox(facts({}, FUTURE), NOW).message).toBe(
      `its test team-a/payments was deleted; kept until its expiry at ${FUTURE}`,
    );
  });
});

describe('isSandboxNameOfRun', () => {
  const LONG = 'a-very-long-restore-test-name-that-uses-the-whole-label-length';
  it.each([
    ['rehearsal', 'payments', 0],
    ['r', 'payments', 3],
    ['a'.repeat(20), LONG, 0],
    ['rehearsal', LONG, 19],
    ['team-a-dr', 'payments', 0],
  ])('recognises prefix %s, test %s, source %d', (prefix, test, index) => {
    expect(isSandboxNameOfRun(sandboxNamespaceName(prefix, test, 'x7k2p', index), test, 'x7k2p')).toBe(true);
  });
  it.each([
    ['rehearsal-payments-x7k2p', 'payment', 'x7k2p'], // the test part must be the test's name, not a prefix of it
    ['rehearsal-payments-x7k2p', 'payments', 'x7k2q'],
    ['payments-x7k2p', 'payments', 'x7k2p'], // no prefix
    [`${'a'.repeat(21)}-payments-x7k2p`, 'payments', 'x7k2p'], // prefix too long
    ['rehearsal-payments-x7k2p-20', 'payments', 'x7k2p'], // more sources than a test may have
    ['rehearsal-payments-x7k2p-0', 'payments', 'x7k2p'],
    ['kube-system', 'system', 'x7k2p'],
  ])('refuses %s for test %s run %s', (name, test, run) => {
    expect(isSandboxNameOfRun(name, test, run)).toBe(false);
  });
});
