// Builds an RFC 3161 TimeStampReq for some data: version 1, the SHA-256 message imprint, a random
// 64-bit nonce (so a replayed older response is recognised) and certReq, so the token carries the
// signer's certificate and verifies later with only the authority's CA certificate at hand.
import { createHash, randomBytes } from 'node:crypto';
import { encodeBoolean, encodeInteger, encodeNull, encodeOctetString, encodeOid, encodeSequence, encodeUnsignedInteger } from './der.js';
import { OID } from './timestamp-oids.js';

export interface TimestampRequest {
  /** The DER TimeStampReq to POST. */
  der: Buffer;
  /** SHA-256 of the data: the token's message imprint must equal it. */
  imprint: Buffer;
  /** The nonce sent: the token must carry it back. */
  nonce: bigint;
}

export function sha256AlgorithmIdentifier(): Buffer {
  return encodeSequence(encodeOid(OID.sha256), encodeNull());
}

export function buildTimestampRequest(data: Buffer, policy?: string, nonceBytes: Buffer = randomBytes(8)): TimestampRequest {
  const imprint = createHash('sha256').update(data).digest();
  const nonce = BigInt(`0x${nonceBytes.toString('hex')}`);
  const der = encodeSequence(
    encodeInteger(1n),
    encodeSequence(sha256AlgorithmIdentifier(), encodeOctetString(imprint)),
    ...(policy ? [encodeOid(policy)] : []),
    encodeUnsignedInteger(nonceBytes),
    encodeBoolean(true),
  );
  return { der, imprint, nonce };
}
