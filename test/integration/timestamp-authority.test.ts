// RFC 3161 time-stamps against a real timestamp authority (OpenSSL's `openssl ts -reply` behind an
// HTTP server on 127.0.0.1: test/helpers/openssl-tsa.ts), the groundwork for issue 33's anchors.
// No cluster is needed. A token from an RSA and from an EC P-256 authority verifies with our
// verifier and with `openssl ts -verify` (our bytes cross-checked by OpenSSL's); every way a token or
// an authority can be wrong is refused with a reason that names it.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { readSignedData } from '../../protocol/evidence/timestamp/cms-signed-data.js';
import { TimestampError } from '../../protocol/evidence/timestamp/timestamp-error.js';
import { verifyTimestampToken } from '../../protocol/evidence/timestamp/timestamp-token.js';
import { requestTimestamp, type TimestampAuthority } from '../../server/evidence/timestamp/timestamp-client.js';
import { opensslVerifies, resignTstInfo, startOpensslTsa, TSA_DEFAULT_POLICY, TSA_OTHER_POLICY, type OpensslTsa } from '../helpers/openssl-tsa.js';
import { describeWithTool } from '../helpers/required-tool.js';

function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

async function refusal(promise: Promise<unknown> | (() => unknown)): Promise<TimestampError> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (error) {
    if (error instanceof TimestampError) return error;
    throw error;
  }
  throw new Error('expected a TimestampError, but the time-stamp was accepted');
}

describeWithTool({ name: 'OpenSSL', available: hasOpenssl(), install: 'apt-get install -y openssl' }, 'RFC 3161 time-stamps from a real authority', () => {
  // What issue 33 will time-stamp: a Merkle root over the newest digest of every chain.
  const data = Buffer.from('merkle-root:3f1c0d9e2b7a4c58e6f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7');
  let tsa: OpensslTsa;
  let stranger: OpensslTsa;
  let scratch: string;
  const authority = (overrides: Partial<TimestampAuthority> = {}): TimestampAuthority => ({ url: tsa.url('rsa'), trusted: [tsa.ca], ...overrides });

  beforeAll(async () => {
    tsa = await startOpensslTsa('Rehearsal Test');
    stranger = await startOpensslTsa('Stranger');
    scratch = mkdtempSync(path.join(tmpdir(), 'rehearsal-tsa-check-'));
    // The first answer /rsa gives is the one /replay sends again.
    await requestTimestamp(data, authority());
  });

  afterAll(async () => {
    await tsa?.stop();
    await stranger?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it.each(['rsa', 'ec'] as const)('%s: time-stamps the data now, and the stored token verifies later against the data and the CA', async (key) => {
    const before = Date.now();
    const stamp = await requestTimestamp(data, authority({ url: tsa.url(key) }));
    // genTime has whole seconds (accuracy secs:1).
    expect(stamp.genTime.getTime()).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 - 1000);
    expect(stamp.genTime.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
    expect(stamp.policy).toBe(TSA_DEFAULT_POLICY);
    expect(stamp.tsaName).toBe(`O=Rehearsal Test, CN=Rehearsal Test TSA ${key.toUpperCase()}`);
    expect(stamp.signer).toContain(`TSA ${key.toUpperCase()}`);
    expect(stamp.serialNumber).toMatch(/^[0-9a-f]+$/);
    expect(Buffer.from(stamp.tokenBase64, 'base64').equals(stamp.token)).toBe(true);

    const later = verifyTimestampToken(stamp.tokenBase64, data, tsa.ca);
    expect(later.genTime).toEqual(stamp.genTime);
    expect(later.serialNumber).toBe(stamp.serialNumber);
  });

  it('asks for a policy the authority offers', async () => {
    expect((await requestTimestamp(data, authority({ policy: TSA_OTHER_POLICY }))).policy).toBe(TSA_OTHER_POLICY);
  });

  it.each(['rsa', 'ec'] as const)('%s: openssl ts -verify accepts the same response and the stored token, and refuses other data', async (key) => {
    const stamp = await requestTimestamp(data, authority({ url: tsa.url(key) }));
    const dataFile = path.join(scratch, `data-${key}`);
    const otherFile = path.join(scratch, `other-${key}`);
    const responseFile = path.join(scratch, `response-${key}.tsr`);
    const tokenFile = path.join(scratch, `token-${key}.der`);
    writeFileSync(dataFile, data);
    writeFileSync(otherFile, Buffer.concat([data, Buffer.from('!')]));
    writeFileSync(responseFile, tsa.served.at(-1)!);
    writeFileSync(tokenFile, Buffer.from(stamp.tokenBase64, 'base64'));

    const response = await opensslVerifies(['-data', dataFile, '-in', responseFile, '-CAfile', tsa.caFile]);
    expect(response.output).toContain('Verification: OK');
    expect(response.ok).toBe(true);
    const token = await opensslVerifies(['-data', dataFile, '-in', tokenFile, '-token_in', '-CAfile', tsa.caFile]);
    expect(token.ok).toBe(true);
    expect((await opensslVerifies(['-data', otherFile, '-in', tokenFile, '-token_in', '-CAfile', tsa.caFile])).ok).toBe(false);
    expect((await opensslVerifies(['-data', dataFile, '-in', tokenFile, '-token_in', '-CAfile', stranger.caFile])).ok).toBe(false);
  });

  it('refuses a stored token for data that changed', async () => {
    const stamp = await requestTimestamp(data, authority());
    const error = await refusal(() => verifyTimestampToken(stamp.token, Buffer.from('merkle-root:rewritten'), tsa.ca));
    expect(error.reason).toBe('imprint-mismatch');
    expect(error.message).toMatch(/^the token's message imprint [0-9a-f]{64} is not the SHA-256 of the data/);
  });

  it('refuses a replayed response: its nonce answers another request', async () => {
    const error = await refusal(requestTimestamp(data, authority({ url: tsa.brokenUrl('replay') })));
    expect(error.reason).toBe('nonce-mismatch');
    expect(error.message).toMatch(/^the token's nonce [0-9a-f]+ is not the request's [0-9a-f]+: a replayed or misdirected response$/);
  });

  it('refuses a token from an authority whose CA is not trusted, and any token when no CA is configured', async () => {
    const error = await refusal(requestTimestamp(data, authority({ url: stranger.url('ec') })));
    expect(error.reason).toBe('untrusted');
    expect(error.message).toBe('certificate O=Stranger, CN=Stranger TSA EC (issued by O=Stranger, CN=Stranger TSA CA) does not chain to a trusted timestamp authority certificate');
    // The same token is good for whoever trusts that CA.
    const stamp = await requestTimestamp(data, { url: stranger.url('ec'), trusted: [stranger.ca] });
    expect(await refusal(() => verifyTimestampToken(stamp.token, data, []))).toMatchObject({ reason: 'untrusted', message: 'no trusted timestamp authority certificate is configured' });
  });

  it('refuses a token signed with a certificate that is not a time-stamping one', async () => {
    const stamp = await requestTimestamp(data, authority({ url: tsa.url('ec') }));
    const tstInfo = readSignedData(stamp.token).eContent;
    // Re-signed by the authority's own certificate, the same TSTInfo verifies: the path is sound.
    const genuine = await resignTstInfo(scratch, tstInfo, path.join(tsa.dir, 'tsa-ec.pem'), path.join(tsa.dir, 'tsa-ec.key'));
    expect(verifyTimestampToken(genuine, data, tsa.ca).genTime).toEqual(stamp.genTime);
    // Signed with a certificate from the same trusted CA, but for serverAuth: refused.
    const forged = await resignTstInfo(scratch, tstInfo, tsa.noTimestampingCertFile, tsa.noTimestampingKeyFile);
    const error = await refusal(() => verifyTimestampToken(forged, data, tsa.ca));
    expect(error.reason).toBe('signer-certificate');
    expect(error.message).toBe(
      'the signer certificate (O=Rehearsal Test, CN=Rehearsal Test not a TSA) has extended key usage 1.3.6.1.5.5.7.3.1; a TSA certificate must have id-kp-timeStamping only',
    );
  });

  it('finds a signer named by subject key identifier, and refuses a time when the certificates were not valid', async () => {
    const stamp = await requestTimestamp(data, authority());
    const tstInfo = readSignedData(stamp.token).eContent;
    const [certFile, keyFile] = [path.join(tsa.dir, 'tsa-rsa.pem'), path.join(tsa.dir, 'tsa-rsa.key')];
    const byKeyId = await resignTstInfo(scratch, tstInfo, certFile, keyFile, true);
    expect('subjectKeyIdentifier' in readSignedData(byKeyId).signer.sid).toBe(true);
    expect(verifyTimestampToken(byKeyId, data, tsa.ca).genTime).toEqual(stamp.genTime);
    // The same TSTInfo claiming a genTime ten years earlier, properly signed: the certificates did not exist then.
    const year = String(stamp.genTime.getUTCFullYear());
    const at = tstInfo.indexOf(Buffer.from(`${year}${stamp.genTime.toISOString().slice(5, 7)}`));
    expect(at).toBeGreaterThan(0);
    const backdated = Buffer.from(tstInfo);
    backdated.write(String(Number(year) - 10), at, 'latin1');
    const token = await resignTstInfo(scratch, backdated, certFile, keyFile);
    const error = await refusal(() => verifyTimestampToken(token, data, tsa.ca));
    expect(error.reason).toBe('untrusted');
    expect(error.message).toMatch(new RegExp(`^certificate O=Rehearsal Test, CN=Rehearsal Test TSA RSA was not valid at the token's time ${Number(year) - 10}-`));
  });

  it('refuses a token whose signature or signed TSTInfo was altered', async () => {
    const stamp = await requestTimestamp(data, authority());
    const badSignature = Buffer.from(stamp.token);
    const last = badSignature.length - 1; // the RSA signature is the token's last field
    badSignature.writeUInt8(badSignature.readUInt8(last) ^ 0x01, last);
    expect(await refusal(() => verifyTimestampToken(badSignature, data, tsa.ca))).toMatchObject({
      reason: 'signature',
      message: "the SignerInfo signature does not verify with the signer certificate's key",
    });
    // Move genTime by a digit: the TSTInfo no longer has the digest the signature covers.
    const genTime = stamp.genTime.toISOString().replace(/[-:T]/g, '').slice(0, 14);
    const at = stamp.token.indexOf(Buffer.from(genTime));
    expect(at).toBeGreaterThan(0);
    const backdated = Buffer.from(stamp.token);
    backdated[at + 3] = backdated[at + 3] === 0x30 ? 0x31 : 0x30; // the year's last digit
    expect(await refusal(() => verifyTimestampToken(backdated, data, tsa.ca))).toMatchObject({
      reason: 'signature',
      message: 'message-digest attribute does not match the hash of the TSTInfo: the signed content was altered',
    });
  });

  it('names the status when the authority rejects the request (a policy it does not offer)', async () => {
    const error = await refusal(requestTimestamp(data, authority({ policy: '1.2.3.4.99' })));
    expect(error.reason).toBe('status');
    expect(error.message).toMatch(/^the timestamp authority did not grant the request: status 2 \(rejection\), failInfo unacceptedPolicy/);
  });

  it('refuses truncated DER, an oversize answer and an HTTP error, naming each', async () => {
    expect(await refusal(requestTimestamp(data, authority({ url: tsa.brokenUrl('garbage') })))).toMatchObject({
      reason: 'malformed',
      message: expect.stringMatching(/^malformed time-stamp response: truncated DER/),
    });
    expect(await refusal(requestTimestamp(data, authority({ url: tsa.brokenUrl('oversize'), maxResponseBytes: 65_536 })))).toMatchObject({
      reason: 'transport',
      message: expect.stringMatching(/answered 1048576 bytes, more than the limit of 65536$/),
    });
    expect(await refusal(requestTimestamp(data, authority({ url: tsa.brokenUrl('oversize-stream'), maxResponseBytes: 65_536 })))).toMatchObject({
      reason: 'transport',
      message: `timestamp authority ${tsa.url('rsa').origin} answered more than the limit of 65536 bytes`,
    });
    expect(await refusal(requestTimestamp(data, authority({ url: tsa.brokenUrl('http-error') })))).toMatchObject({
      reason: 'transport',
      message: `timestamp authority ${tsa.url('rsa').origin} answered HTTP 503`,
    });
  });

  it('gives up on an authority that does not answer in time', async () => {
    const started = Date.now();
    const error = await refusal(requestTimestamp(data, authority({ url: tsa.brokenUrl('silent'), timeoutMs: 500 })));
    expect(error).toMatchObject({ reason: 'transport', message: `timestamp authority ${tsa.url('rsa').origin}: no answer within 500 ms` });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('stop() removes the authority\'s keys and closes its port', async () => {
    const shortLived = await startOpensslTsa('Short Lived');
    await requestTimestamp(data, { url: shortLived.url('ec'), trusted: [shortLived.ca] });
    await shortLived.stop();
    expect(existsSync(shortLived.dir)).toBe(false);
    expect(await refusal(requestTimestamp(data, { url: shortLived.url('ec'), trusted: [shortLived.ca] }))).toMatchObject({ reason: 'transport' });
  });
});
