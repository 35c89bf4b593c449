// kubectl restoretest verify --anchors --tsa-cert with anchors time-stamped by a real RFC 3161
// authority (OpenSSL's, test/helpers/openssl-tsa.ts; no cluster is needed): the summary names the
// authority's time and signer; a token from an authority that is not trusted makes its anchor
// unusable. And the auditor's check without Rehearsal that docs/evidence.md gives: the checkpoint's
// RFC 8785 bytes (the canonicalize package's command) hash to the anchor's digest, and
// `openssl ts -verify -token_in` accepts the stored token over them.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { buildCheckpoint, checkpointBytes, checkpointDigest, type AnchorDocument } from '../../protocol/evidence/anchor/checkpoint.js';
import { canonicalJson } from '../../protocol/evidence/canonical-json.js';
import type { RestoreReport } from '../../server/domain/resources/resources.js';
import { withEvidence } from '../../server/evidence/evidence.js';
import { exportPublicKeyPem, generateSigningKey } from '../../server/evidence/signing-key.js';
import { requestTimestamp } from '../../server/evidence/timestamp/timestamp-client.js';
import { makeReport, makeRestoreTest, PERIOD_START } from '../fixtures/evidence/reports.js';
import { opensslVerifies, startOpensslTsa, type OpensslTsa } from '../helpers/openssl-tsa.js';
import { describeWithTool } from '../helpers/required-tool.js';
import { runPlugin } from '../unit/plugin/support/run-plugin.js';

function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describeWithTool({ name: 'OpenSSL', available: hasOpenssl(), install: 'apt-get install -y openssl' }, 'verify --anchors with time-stamped anchors', () => {
  const key = generateSigningKey();
  const test = makeRestoreTest('orders-nightly', ['orders'], { uid: 'uid-orders' });
  const chain: RestoreReport[] = [];
  for (let i = 0; i < 3; i += 1) {
    const report = JSON.parse(JSON.stringify(makeReport(test, i, PERIOD_START, { result: 'pass', rtoSeconds: 300 }))) as RestoreReport;
    chain.push(withEvidence(report, chain.at(-1)?.spec.evidence!.digest, key, i + 1));
  }
  let tsa: OpensslTsa;
  let stranger: OpensslTsa;
  let dir: string;
  let document: AnchorDocument;
  let genTime: Date;
  let signer: string;
  const files = { key: '', reports: '', anchors: '' };

  beforeAll(async () => {
    tsa = await startOpensslTsa('Rehearsal Test');
    stranger = await startOpensslTsa('Stranger');
    dir = mkdtempSync(path.join(tmpdir(), 'rehearsal-anchor-verify-'));
    const newest = chain.at(-1)!.spec.evidence!;
    const checkpoint = buildCheckpoint({
      installation: 'test-cluster/rehearsal-system',
      writtenAt: new Date(),
      reason: 'scheduled',
      heads: [{ testUid: 'uid-orders', sequence: newest.sequence!, digest: newest.digest }],
    });
    // As the server's anchor writer does: the authority time-stamps the checkpoint's canonical bytes.
    const token = await requestTimestamp(checkpointBytes(checkpoint), { url: tsa.url('ec'), trusted: [tsa.ca] });
    genTime = token.genTime;
    signer = token.signer;
    document = {
      checkpoint,
      digest: checkpointDigest(checkpoint),
      signature: { keyId: key.keyId, algorithm: 'Ed25519', value: key.sign(canonicalJson(checkpoint)) },
      timestamp: { token: token.tokenBase64 },
    };
    files.key = path.join(dir, 'key.pem');
    writeFileSync(files.key, exportPublicKeyPem(key));
    files.reports = path.join(dir, 'reports.json');
    writeFileSync(files.reports, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: chain }));
    files.anchors = path.join(dir, 'bucket');
    mkdirSync(path.join(files.anchors, 'anchors'), { recursive: true });
    writeFileSync(path.join(files.anchors, 'anchors', 'a.json'), JSON.stringify(document, null, 2));
  });

  afterAll(async () => {
    await tsa?.stop();
    await stranger?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('names the authority\'s time and signer when the token verifies against --tsa-cert', async () => {
    const result = await runPlugin(['verify', '-f', files.reports, '--public-key', files.key, '--anchors', files.anchors, '--tsa-cert', tsa.caFile]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`anchors: 1 recorded the chain of ${test.metadata.namespace}/orders-nightly; newest agreeing written ${genTime.toISOString()} (time-stamped by ${signer})\n`);
    expect(signer).toContain('CN=Rehearsal Test TSA EC');
    expect(result.stdout).not.toContain("the server's claim");
  });

  it('does not use an anchor whose token another authority signed, and fails when it is the only one', async () => {
    const result = await runPlugin(['verify', '-f', files.reports, '--public-key', files.key, '--anchors', files.anchors, '--tsa-cert', stranger.caFile]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^warning: anchor .*a\.json is not used: its time-stamp does not verify: /m);
    expect(result.stdout).toContain('anchor: none of the 1 anchors read can be used (warnings above): the chains were not compared with any\n');
  });

  it('checks without Rehearsal as docs/evidence.md says: canonical bytes hash to the digest, openssl accepts the token', async () => {
    // `jq .checkpoint anchor.json | npx canonicalize` (jq's pretty output, re-canonicalized).
    const bytes = execFileSync(path.resolve('node_modules/.bin/canonicalize'), { input: JSON.stringify(document.checkpoint, null, 2) });
    expect(`sha256:${createHash('sha256').update(bytes).digest('hex')}`).toBe(document.digest);
    const dataFile = path.join(dir, 'checkpoint.bin');
    const tokenFile = path.join(dir, 'token.der');
    writeFileSync(dataFile, bytes);
    writeFileSync(tokenFile, Buffer.from(document.timestamp!.token, 'base64'));
    const accepted = await opensslVerifies(['-data', dataFile, '-in', tokenFile, '-token_in', '-CAfile', tsa.caFile]);
    expect(accepted).toMatchObject({ ok: true });
    const refused = await opensslVerifies(['-data', dataFile, '-in', tokenFile, '-token_in', '-CAfile', stranger.caFile]);
    expect(refused.ok).toBe(false);
  });
});
