// kubectl restoretest verify --anchors (issue 33): real signed reports against real signed anchor
// documents, as an auditor downloads them from the bucket. An untouched chain passes with a
// summary; a history rewritten (re-signed with the key a cluster administrator can read) or cut
// after an anchor recorded it fails, naming the anchor's time; junk beside the anchors is a note or
// a warning, never a pass without evidence. Tokens from a real authority: the integration test
// test/integration/anchor-verify.test.ts; here only the paths that need none.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { components } from '../../../openapi/client.js';
import { buildCheckpoint, checkpointDigest, type AnchorDocument, type Checkpoint } from '../../../protocol/evidence/anchor/checkpoint.js';
import { canonicalJson } from '../../../protocol/evidence/canonical-json.js';
import { short } from '../../../protocol/evidence/digest-text.js';
import type { RestoreReport } from '../../../server/domain/resources/resources.js';
import { withEvidence } from '../../../server/evidence/evidence.js';
import { exportPublicKeyPem, generateSigningKey, type SigningKey } from '../../../server/evidence/signing-key.js';
import { makeReport, makeRestoreTest, PAYMENTS_CHECKS, PERIOD_START, type RunShape } from '../../fixtures/evidence/reports.js';
import { FakeApi } from './support/fake-api.js';
import { runPlugin, writeKubeconfig } from './support/run-plugin.js';

const key = generateSigningKey();
const test = makeRestoreTest('payments-nightly', ['payments'], { maxRTO: '15m', uid: 'uid-payments', checks: PAYMENTS_CHECKS });
const TEST = `${test.metadata.namespace}/payments-nightly`;
const TSA_CA = fileURLToPath(new URL('../../fixtures/evidence/tsa-ca.pem', import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'rh-plugin-anchors-'));
const keyFile = path.join(dir, 'key.pem');
writeFileSync(keyFile, exportPublicKeyPem(key));

/** A signed chain with sequences 1..count, as the server's report signer makes it. */
function history(count: number, shapeOf: (index: number) => RunShape = () => ({ result: 'pass', rtoSeconds: 600 })): RestoreReport[] {
  const out: RestoreReport[] = [];
  for (let i = 0; i < count; i += 1) {
    const report = JSON.parse(JSON.stringify(makeReport(test, i, PERIOD_START, shapeOf(i)))) as RestoreReport;
    out.push(withEvidence(report, out.at(-1)?.spec.evidence!.digest, key, i + 1));
  }
  return out;
}

/** An anchor as the server stores it: the chain's newest report (and another test's) under a signed checkpoint. */
function anchorOf(writtenAt: string, chain: readonly RestoreReport[], options: { signer?: SigningKey; previous?: string; token?: string; testUid?: string } = {}): AnchorDocument {
  const newest = chain.at(-1)!.spec.evidence!;
  const checkpoint: Checkpoint = buildCheckpoint({
    installation: 'test-cluster/rehearsal-system',
    writtenAt: new Date(writtenAt),
    reason: 'scheduled',
    heads: [
      { testUid: options.testUid ?? 'uid-payments', sequence: newest.sequence!, digest: newest.digest },
      { testUid: 'uid-other', sequence: 7, digest: `sha256:${'ab'.repeat(32)}` },
    ],
    ...(options.previous ? { previous: options.previous } : {}),
  });
  const signer = options.signer ?? key;
  return {
    checkpoint,
    digest: checkpointDigest(checkpoint),
    signature: { keyId: signer.keyId, algorithm: 'Ed25519', value: signer.sign(canonicalJson(checkpoint)) },
    ...(options.token ? { timestamp: { token: options.token } } : {}),
  };
}

function writeJson(file: string, value: unknown): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(value));
  return file;
}

/** A download of the bucket: anchors/<name>.json for each document (and any other files given). */
function bucketDownload(name: string, documents: Record<string, unknown>): string {
  const root = path.join(dir, name);
  for (const [file, value] of Object.entries(documents)) writeJson(path.join(root, 'anchors', file), value);
  return root;
}

const reportsFile = (reports: RestoreReport[], name: string) => writeJson(path.join(dir, name), { apiVersion: 'v1', kind: 'List', items: reports });
const lines = (stdout: string, prefix: string) => stdout.split('\n').filter((line) => line.startsWith(prefix));

const chain = history(5);
const early = anchorOf('2026-01-03T12:00:00Z', chain.slice(0, 3));
const late = anchorOf('2026-01-05T12:00:00Z', chain, { previous: early.digest });

describe('verify -f --anchors', () => {
  it('an untouched chain passes, with one summary line naming the newest agreeing anchor', async () => {
    const anchors = bucketDownload('untouched', { 'a1.json': early, 'a2.json': late });
    const result = await runPlugin(['verify', '-f', reportsFile(chain, 'untouched.json'), '--public-key', keyFile, '--anchors', anchors]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(lines(result.stdout, 'anchor')).toEqual([
      `anchors: 2 recorded the chain of ${TEST}; newest agreeing written 2026-01-05T12:00:00.000Z (the server's claim, not time-stamped)`,
    ]);
    expect(result.stdout).toContain("note: 2 of 2 anchors used: not time-stamped (no authority was configured when it was written); their times are the server's claim\n");
    expect(result.stdout).toContain('5/5 reports verified\n');
  });

  it('a history rewritten and re-signed after an anchor fails, naming the report and the anchor time', async () => {
    // The administrator re-ran history: the 4th and 5th reports now fail, re-signed and re-chained with the evidence key.
    const rewritten = history(5, (i) => ({ result: i >= 3 ? 'fail' : 'pass', rtoSeconds: 600 }));
    const anchors = bucketDownload('rewritten', { 'a1.json': early, 'a2.json': late });
    const result = await runPlugin(['verify', '-f', reportsFile(rewritten, 'rewritten.json'), '--public-key', keyFile, '--anchors', anchors]);
    expect(result.code).toBe(1);
    // The chain itself still verifies: only the anchor can tell.
    expect(lines(result.stdout, `${rewritten[4]!.metadata.name}: `)).toEqual([`${rewritten[4]!.metadata.name}: OK`]);
    expect(lines(result.stdout, 'anchor')).toEqual([
      `anchor: rewritten after it was anchored: ${rewritten[4]!.metadata.name} (sequence 5) has digest ${short(rewritten[4]!.spec.evidence!.digest)}, but the anchor written 2026-01-05T12:00:00.000Z (the server's claim, not time-stamped) recorded sequence 5, ${short(chain[4]!.spec.evidence!.digest)}: this report or one before it was changed after that time`,
      `anchors: 2 recorded the chain of ${TEST}; newest agreeing written 2026-01-03T12:00:00.000Z (the server's claim, not time-stamped)`,
    ]);
    expect(result.stdout).toContain('5/5 reports verified; evidence does NOT verify\n');
  });

  it('deleted newest reports fail as a missing tail, though the shorter chain links', async () => {
    const anchors = bucketDownload('cut', { 'a2.json': late });
    const result = await runPlugin(['verify', '-f', reportsFile(chain.slice(0, 4), 'cut.json'), '--public-key', keyFile, '--anchors', anchors]);
    expect(result.code).toBe(1);
    expect(lines(result.stdout, 'anchor: ')).toEqual([
      `anchor: missing tail: the anchor written 2026-01-05T12:00:00.000Z (the server's claim, not time-stamped) recorded sequence 5, ${short(chain[4]!.spec.evidence!.digest)}; the newest report present is sequence 4: reports were deleted after that time`,
    ]);
    // Only the later anchor was downloaded: the one it follows is named as missing.
    expect(result.stdout).toContain(`note: anchor ${path.join(anchors, 'anchors', 'a2.json')} follows an anchor not among those read (${short(early.digest)})`);
  });

  it('a chain no anchor recorded passes, and says so', async () => {
    const anchors = bucketDownload('unrecorded', { 'a.json': anchorOf('2026-01-05T12:00:00Z', chain, { testUid: 'uid-created-later' }) });
    const result = await runPlugin(['verify', '-f', reportsFile(chain, 'unrecorded.json'), '--public-key', keyFile, '--anchors', anchors]);
    expect(result.code).toBe(0);
    expect(lines(result.stdout, 'anchor')).toEqual([`anchors: none recorded the chain of ${TEST}`]);
  });

  it('a non-anchor JSON file in the directory is a note; named explicitly it is an error', async () => {
    const anchors = bucketDownload('junk', { 'a2.json': late, 'inventory.json': { objects: 3 } });
    const junk = path.join(anchors, 'anchors', 'inventory.json');
    const result = await runPlugin(['verify', '-f', reportsFile(chain, 'junk.json'), '--public-key', keyFile, '--anchors', anchors]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`note: ${junk}: not an anchor document, skipped\n`);

    const named = await runPlugin(['verify', '-f', reportsFile(chain, 'junk.json'), '--public-key', keyFile, '--anchors', junk]);
    expect(named.code).toBe(1);
    expect(named.stdout).toBe('');
    expect(named.stderr.split('\n')[0]).toBe(`error: ${junk}: not an anchor document (a RehearsalEvidenceCheckpoint with its digest and signature)`);

    const empty = path.join(dir, 'empty');
    mkdirSync(empty);
    const none = await runPlugin(['verify', '-f', reportsFile(chain, 'junk.json'), '--public-key', keyFile, '--anchors', empty]);
    expect(none.code).toBe(1);
    expect(none.stderr.split('\n')[0]).toBe(`error: ${empty}: no anchor documents in this directory (every *.json under it is read)`);
  });

  it('a forged or edited anchor is a warning and not used; it does not fail a run other anchors agree with', async () => {
    const edited = structuredClone(late);
    edited.checkpoint.heads[0]!.digest = chain[3]!.spec.evidence!.digest; // claims the chain ended earlier
    const forged = anchorOf('2026-01-04T12:00:00Z', chain, { signer: generateSigningKey() });
    const anchors = bucketDownload('forged', { 'a1.json': early, 'edited.json': edited, 'forged.json': forged });
    const result = await runPlugin(['verify', '-f', reportsFile(chain, 'forged.json'), '--public-key', keyFile, '--anchors', anchors]);
    expect(result.code).toBe(0);
    expect(lines(result.stdout, 'warning: ')).toEqual([
      `warning: anchor ${path.join(anchors, 'anchors', 'edited.json')} is not used: its digest does not match its checkpoint (edited); its Merkle root does not match its heads; its signature does not verify`,
      `warning: anchor ${path.join(anchors, 'anchors', 'forged.json')} is not used: signed with unknown key ${forged.signature.keyId}`,
    ]);
    expect(lines(result.stdout, 'anchors: ')).toEqual([`anchors: 1 recorded the chain of ${TEST}; newest agreeing written 2026-01-03T12:00:00.000Z (the server's claim, not time-stamped)`]);
  });

  it('fails when no anchor read can be used (a wrong key or authority must not pass unnoticed)', async () => {
    const file = writeJson(path.join(dir, 'only-forged.json'), anchorOf('2026-01-05T12:00:00Z', chain, { signer: generateSigningKey() }));
    const result = await runPlugin(['verify', '-f', reportsFile(chain, 'only-forged.json.reports'), '--public-key', keyFile, '--anchors', file]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('anchor: none of the 1 anchors read can be used (warnings above): the chains were not compared with any\n');
    expect(lines(result.stdout, 'anchors: ')).toEqual([]);
  });

  it('counts an anchor downloaded twice once', async () => {
    const anchors = bucketDownload('copies', { 'a2.json': late, 'versions/a2.json.v1.json': late });
    const result = await runPlugin(['verify', '-f', reportsFile(chain, 'copies.json'), '--public-key', keyFile, '--anchors', anchors]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('note: 1 anchor file was a copy of another read, counted once\n');
    expect(lines(result.stdout, 'anchors: ')[0]).toMatch(/^anchors: 1 recorded the chain/);
  });
});

describe('verify --anchors: time-stamps', () => {
  it('without --tsa-cert a token is not checked, and the output says so', async () => {
    const anchors = bucketDownload('unchecked', { 'a2.json': anchorOf('2026-01-05T12:00:00Z', chain, { token: Buffer.from('not checked').toString('base64') }) });
    const result = await runPlugin(['verify', '-f', reportsFile(chain, 'unchecked.json'), '--public-key', keyFile, '--anchors', anchors]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("note: 1 of 1 anchors used: time-stamp not checked: no authority certificate given (--tsa-cert PEM); their times are the server's claim\n");
  });

  it('with --tsa-cert a token that does not verify makes its anchor unusable (a warning)', async () => {
    const malformed = anchorOf('2026-01-05T12:00:00Z', chain, { token: Buffer.from([0x30, 0x03, 0x02, 0x01]).toString('base64') });
    const anchors = bucketDownload('malformed', { 'a1.json': early, 'a2.json': malformed });
    const result = await runPlugin(['verify', '-f', reportsFile(chain, 'malformed.json'), '--public-key', keyFile, '--anchors', anchors, '--tsa-cert', TSA_CA]);
    expect(result.code).toBe(0);
    expect(lines(result.stdout, 'warning: ')).toEqual([
      expect.stringMatching(new RegExp(`^warning: anchor ${path.join(anchors, 'anchors', 'a2.json')} is not used: its time-stamp does not verify: malformed time-stamp token: `)),
    ]);
    expect(result.stdout).toContain('note: 1 of 1 anchors used: not time-stamped (no authority was configured when it was written)');
  });

  it('--tsa-cert without a certificate in the file is an error; without --anchors a usage error', async () => {
    const notPem = writeJson(path.join(dir, 'not-a-cert.pem'), {});
    const anchors = bucketDownload('cert', { 'a2.json': late });
    const bad = await runPlugin(['verify', '-f', reportsFile(chain, 'cert.json'), '--public-key', keyFile, '--anchors', anchors, '--tsa-cert', notPem]);
    expect(bad.code).toBe(1);
    expect(bad.stderr.split('\n')[0]).toBe(`error: ${notPem}: no CERTIFICATE block found (--tsa-cert takes the authority's CA certificate, PEM)`);
    const usage = await runPlugin(['verify', '-f', reportsFile(chain, 'cert.json'), '--tsa-cert', TSA_CA]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toBe('error: --tsa-cert checks the time-stamps of anchors: give --anchors too\n');
  });
});

describe('verify NAME --anchors through the API', () => {
  type Report = components['schemas']['RestoreReportResource'];
  let fake: FakeApi;
  const keysReply = {
    status: 200,
    body: [{ keyId: key.keyId, algorithm: 'Ed25519', publicKeyPem: exportPublicKeyPem(key), createdAt: '2026-01-01T00:00:00Z', status: 'current' }],
  };
  const testPath = `/apis/rehearsal.dev/v1alpha1/namespaces/${test.metadata.namespace}/restoretests/payments-nightly`;

  beforeAll(async () => {
    fake = await FakeApi.start();
  });
  afterAll(async () => {
    await fake.close();
  });
  afterEach(() => {
    expect(fake.problems).toEqual([]);
  });

  it('checks the anchors against the published keys, with no other API call', async () => {
    fake.reports = JSON.parse(JSON.stringify(chain)) as Report[];
    fake.on('GET', '/api/v1/evidence/keys', keysReply);
    const anchors = bucketDownload('by-name', { 'a1.json': early, 'a2.json': late });
    const result = await runPlugin(['verify', 'payments-nightly', '-n', test.metadata.namespace!, '--server', fake.url, '--anchors', anchors]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(lines(result.stdout, 'anchors: ')).toEqual([`anchors: 2 recorded the chain of ${TEST}; newest agreeing written 2026-01-05T12:00:00.000Z (the server's claim, not time-stamped)`]);
    expect(fake.calls).toEqual([`GET /api/v1/reports?test=payments-nightly&namespace=${test.metadata.namespace}&days=3650`, 'GET /api/v1/evidence/keys']);
  });

  it('every report deleted: the RestoreTest\'s uid still finds what the anchors recorded', async () => {
    fake.reports = [];
    fake.on('GET', '/api/v1/evidence/keys', keysReply);
    const anchor = { sequence: 5, digest: chain[4]!.spec.evidence!.digest, report: chain[4]!.metadata.name };
    fake.kubeObjects.set(testPath, () => ({ status: 200, body: { ...test, status: { evidenceAnchor: anchor } } }));
    const anchors = bucketDownload('all-deleted', { 'a2.json': late });
    const result = await runPlugin(['verify', 'payments-nightly', '-n', test.metadata.namespace!, '--kubeconfig', writeKubeconfig(fake.url), '--server', fake.url, '--anchors', anchors]);
    expect(result.code).toBe(1);
    expect(lines(result.stdout, 'anchor: ')).toEqual([
      `anchor: missing tail: the anchor written 2026-01-05T12:00:00.000Z (the server's claim, not time-stamped) recorded sequence 5, ${short(chain[4]!.spec.evidence!.digest)}; the newest report present is none: reports were deleted after that time`,
    ]);
  });
});
