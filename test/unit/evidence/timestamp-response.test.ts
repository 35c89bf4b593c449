// A timestamp authority's answer before any signature is checked: a refused request is named with
// its PKIStatus, failInfo and text; a granted one yields the token; and a malformed answer or
// token is refused as malformed, never thrown as a raw parser error.
import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import {
  TAG,
  encodeExplicit,
  encodeImplicit,
  encodeInteger,
  encodeOctetString,
  encodeOid,
  encodeSequence,
  encodeSet,
  encodeTlv,
} from '../../../protocol/evidence/timestamp/der.js';
import { TimestampError } from '../../../protocol/evidence/timestamp/timestamp-error.js';
import { OID } from '../../../protocol/evidence/timestamp/timestamp-oids.js';
import { readTimestampResponse } from '../../../protocol/evidence/timestamp/timestamp-response.js';
import { verifyTimestampToken } from '../../../protocol/evidence/timestamp/timestamp-token.js';

const utf8 = (text: string) => encodeTlv(TAG.UTF8_STRING, Buffer.from(text));

function refusal(run: () => unknown): TimestampError {
  try {
    run();
  } catch (error) {
    if (error instanceof TimestampError) return error;
    throw error;
  }
  throw new Error('expected a TimestampError');
}

describe('TimeStampResp status', () => {
  it('names a rejection with its failInfo and the authority\'s text', () => {
    // failInfo bits 0 (badAlg) and 15 (unacceptedPolicy)
    const failInfo = Buffer.from('030506' + '80010000', 'hex');
    const answer = encodeSequence(encodeSequence(encodeInteger(2n), encodeSequence(utf8('Requested policy is not supported.')), failInfo));
    const error = refusal(() => readTimestampResponse(answer));
    expect(error.reason).toBe('status');
    expect(error.message).toBe(
      'the timestamp authority did not grant the request: status 2 (rejection), failInfo badAlg, unacceptedPolicy: "Requested policy is not supported."',
    );
  });

  it.each([
    [3n, 'status 3 (waiting)'],
    [5n, 'status 5 (revocationNotification)'],
    [9n, 'status 9 (unknown)'],
  ])('refuses status %s', (status, named) => {
    const error = refusal(() => readTimestampResponse(encodeSequence(encodeSequence(encodeInteger(status)))));
    expect(error.reason).toBe('status');
    expect(error.message).toContain(named);
  });

  it('returns the token of a granted answer, and refuses a granted answer without one', () => {
    const token = encodeSequence(encodeOid(OID.signedData), encodeExplicit(0, encodeSequence()));
    for (const status of [0n, 1n]) {
      const granted = readTimestampResponse(encodeSequence(encodeSequence(encodeInteger(status)), token));
      expect(granted.status).toBe(status === 0n ? 'granted' : 'grantedWithMods');
      expect(granted.token.equals(token)).toBe(true);
    }
    const error = refusal(() => readTimestampResponse(encodeSequence(encodeSequence(encodeInteger(0n)))));
    expect(error).toMatchObject({ reason: 'malformed', message: expect.stringContaining('no timeStampToken') });
  });

  it.each([
    ['garbage', Buffer.from('not DER at all')],
    ['a truncated answer', encodeSequence(encodeSequence(encodeInteger(0n))).subarray(0, 4)],
    ['an OCTET STRING', encodeOctetString(Buffer.from('x'))],
  ])('refuses %s as malformed', (_name, answer) => {
    const error = refusal(() => readTimestampResponse(answer));
    expect(error.reason).toBe('malformed');
    expect(error.message).toMatch(/^malformed time-stamp response: /);
  });

  it('refuses an answer larger than its limit', () => {
    const big = encodeSequence(encodeSequence(encodeInteger(0n)), encodeOctetString(Buffer.alloc(2000)));
    const error = refusal(() => readTimestampResponse(big, { maxBytes: 1000, maxDepth: 8, maxNodes: 100 }));
    expect(error).toMatchObject({ reason: 'malformed', message: expect.stringContaining('exceeds the limit of 1000') });
  });
});

describe('time-stamp token structure', () => {
  // Any certificate will do: these tokens are refused before a signer is looked for.
  const unused = [] as X509Certificate[];

  it('refuses garbage and a token that is not SignedData', () => {
    expect(refusal(() => verifyTimestampToken(Buffer.from('garbage'), Buffer.from('x'), unused))).toMatchObject({ reason: 'malformed' });
    const data = encodeSequence(encodeOid('1.2.840.113549.1.7.1'), encodeExplicit(0, encodeOctetString(Buffer.from('x'))));
    expect(refusal(() => verifyTimestampToken(data, Buffer.from('x'), unused)).message).toBe(
      'malformed time-stamp token: ContentInfo contentType is 1.2.840.113549.1.7.1, not signedData',
    );
  });

  it('refuses SignedData whose content is not a TSTInfo, and one with two signers', () => {
    const signedData = (eContentType: string, signers: Buffer[]) =>
      encodeSequence(
        encodeOid(OID.signedData),
        encodeExplicit(0, encodeSequence(encodeInteger(3n), encodeSet(), encodeSequence(encodeOid(eContentType), encodeExplicit(0, encodeOctetString(Buffer.from('{}')))), encodeSet(...signers))),
      );
    const signer = (serial: bigint) =>
      encodeSequence(
        encodeInteger(1n),
        encodeSequence(encodeSequence(), encodeInteger(serial)),
        encodeSequence(encodeOid(OID.sha256)),
        encodeImplicit(0, encodeSet()),
        encodeSequence(encodeOid(OID.sha256WithRsa)),
        encodeOctetString(Buffer.alloc(8)),
      );
    expect(refusal(() => verifyTimestampToken(signedData(OID.tstInfo, [signer(1n), signer(2n)]), Buffer.from('x'), unused)).message).toContain(
      'SignedData has 2 SignerInfos; a time-stamp token has exactly one',
    );
    expect(refusal(() => verifyTimestampToken(signedData('1.2.840.113549.1.7.1', [signer(1n)]), Buffer.from('x'), unused))).toMatchObject({
      reason: 'malformed',
      message: "the token's content type is 1.2.840.113549.1.7.1, not id-ct-TSTInfo",
    });
  });
});
