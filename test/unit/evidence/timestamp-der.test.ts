// The DER reader and writer under RFC 3161 time-stamps: exact encodings of the values a request
// holds, and a strict, bounded reader that refuses what a hostile authority could send (truncated,
// BER lengths, trailing bytes, deep nesting, too many elements, oversize input).
import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import {
  DerError,
  TAG,
  contextTag,
  encodeBoolean,
  encodeExplicit,
  encodeImplicit,
  encodeInteger,
  encodeOctetString,
  encodeOid,
  encodeSequence,
  encodeSet,
  encodeTlv,
  parseDer,
  readBitNumbers,
  readBoolean,
  readGeneralizedTime,
  readInteger,
  readOid,
} from '../../../protocol/evidence/timestamp/der.js';
import { buildTimestampRequest } from '../../../protocol/evidence/timestamp/timestamp-request.js';
import { OID } from '../../../protocol/evidence/timestamp/timestamp-oids.js';

const hex = (buffer: Buffer) => buffer.toString('hex');

describe('DER INTEGER', () => {
  it.each([
    [0n, '020100'],
    [127n, '02017f'],
    [128n, '02020080'],
    [255n, '020200ff'],
    [256n, '02020100'],
    [-1n, '0201ff'],
    [-128n, '020180'],
    [-129n, '0202ff7f'],
    [2n ** 64n, '0209010000000000000000'],
  ])('%s encodes as %s and reads back', (value, expected) => {
    expect(hex(encodeInteger(value))).toBe(expected);
    expect(readInteger(parseDer(Buffer.from(expected, 'hex')), 'n')).toBe(value);
  });

  it('refuses a non-minimal INTEGER', () => {
    expect(() => readInteger(parseDer(Buffer.from('02020001', 'hex')), 'serial')).toThrow('serial: non-minimal INTEGER');
    expect(() => readInteger(parseDer(Buffer.from('0202ff80', 'hex')), 'serial')).toThrow('non-minimal');
  });
});

describe('DER OBJECT IDENTIFIER', () => {
  it('encodes SHA-256 as RFC 5754 spells it', () => {
    expect(hex(encodeOid(OID.sha256))).toBe('0609608648016503040201');
  });

  it.each([OID.tstInfo, OID.signedData, OID.timeStamping, '2.999.3', '1.2.3.4.1'])('%s round-trips', (oid) => {
    expect(readOid(parseDer(encodeOid(oid)), 'oid')).toBe(oid);
  });

  it('refuses a truncated arc', () => {
    expect(() => readOid(parseDer(Buffer.from('06022a86', 'hex')), 'policy')).toThrow('policy: truncated OBJECT IDENTIFIER');
  });
});

describe('DER GeneralizedTime', () => {
  const time = (text: string) => readGeneralizedTime(parseDer(encodeTlv(TAG.GENERALIZED_TIME, Buffer.from(text))), 'genTime');

  it('reads seconds and fractions in UTC', () => {
    expect(time('20261207064320Z').toISOString()).toBe('2026-12-07T06:43:20.000Z');
    expect(time('20261207064320.5Z').toISOString()).toBe('2026-12-07T06:43:20.500Z');
    expect(time('20261207064320.123456Z').toISOString()).toBe('2026-12-07T06:43:20.123Z');
  });

  it.each(['20261207064320.50Z', '202612070643Z', '20261207064320', '20261207064320+0100', '20260230000000Z'])('refuses %s', (text) => {
    expect(() => time(text)).toThrow(DerError);
  });
});

describe('DER structure', () => {
  it('reads nested values with their exact bytes', () => {
    const inner = encodeSequence(encodeInteger(5n), encodeOctetString(Buffer.from('abc')));
    const outer = encodeSequence(inner, encodeBoolean(true));
    const node = parseDer(outer);
    expect(node.children).toHaveLength(2);
    expect(node.children[0]!.der.equals(inner)).toBe(true);
    expect(readBoolean(node.children[1], 'certReq')).toBe(true);
  });

  it('sorts SET OF members and tags explicitly and implicitly', () => {
    expect(hex(encodeSet(encodeInteger(2n), encodeInteger(1n)))).toBe('3106020101020102');
    expect(hex(encodeExplicit(0, encodeInteger(1n)))).toBe('a003020101');
    expect(hex(encodeImplicit(0, encodeSequence(encodeInteger(1n))))).toBe('a003020101');
    expect(hex(encodeImplicit(2, encodeOctetString(Buffer.from('x'))))).toBe('820178');
    expect(contextTag(1, false)).toBe(0x81);
  });

  it('uses long-form lengths past 127 bytes', () => {
    const long = encodeOctetString(Buffer.alloc(300));
    expect(hex(long.subarray(0, 4))).toBe('0482012c');
    expect(parseDer(long).content).toHaveLength(300);
  });

  it('reads the set bits of a BIT STRING (failInfo)', () => {
    // bits 0 and 15 of 26 (badAlg, unacceptedPolicy): 4 bytes, 6 unused bits.
    expect(readBitNumbers(parseDer(Buffer.from('030506' + '80010000', 'hex')), 'failInfo')).toEqual([0, 15]);
  });

  it.each([
    ['truncated value', '3005020101', 'truncated DER'],
    ['truncated length', '3082', 'truncated DER'],
    ['indefinite length (BER)', '3080020101000000', 'indefinite length'],
    ['non-minimal length', '308103020101', 'non-minimal length'],
    ['trailing bytes', '30030201010000', '2 trailing byte(s)'],
    ['high tag number', '1f0100', 'high tag number'],
    ['a child overrunning its parent', '30030204010203', 'truncated DER'],
  ])('refuses %s', (_name, input, message) => {
    expect(() => parseDer(Buffer.from(input, 'hex'))).toThrow(message);
  });

  it('refuses nesting deeper than the limit', () => {
    let nested = encodeInteger(1n);
    for (let i = 0; i < 40; i++) nested = encodeSequence(nested);
    expect(() => parseDer(nested)).toThrow('DER nesting deeper than 24');
    expect(parseDer(nested, { maxBytes: 1024, maxDepth: 64, maxNodes: 100 }).tag).toBe(TAG.SEQUENCE);
  });

  it('refuses more elements than the limit and input larger than the limit', () => {
    const many = encodeSequence(...Array.from({ length: 50 }, (_, i) => encodeInteger(BigInt(i))));
    expect(() => parseDer(many, { maxBytes: 4096, maxDepth: 4, maxNodes: 20 })).toThrow('more than 20 elements');
    expect(() => parseDer(many, { maxBytes: 100, maxDepth: 4, maxNodes: 100 })).toThrow('exceeds the limit of 100');
  });
});

describe('TimeStampReq', () => {
  it('holds version 1, the SHA-256 imprint, the nonce and certReq', () => {
    const data = Buffer.from('newest chain digests');
    const request = buildTimestampRequest(data, undefined, Buffer.from('8000000000000001', 'hex'));
    const node = parseDer(request.der);
    expect(readInteger(node.children[0], 'version')).toBe(1n);
    const imprint = node.children[1]!;
    expect(readOid(imprint.children[0]!.children[0], 'hashAlgorithm')).toBe(OID.sha256);
    expect(imprint.children[1]!.content.equals(createHash('sha256').update(data).digest())).toBe(true);
    expect(request.imprint.equals(imprint.children[1]!.content)).toBe(true);
    // A nonce whose top bit is set stays positive (a leading zero byte).
    expect(hex(node.children[2]!.der)).toBe('0209008000000000000001');
    expect(readInteger(node.children[2], 'nonce')).toBe(request.nonce);
    expect(request.nonce).toBe(0x8000000000000001n);
    expect(readBoolean(node.children[3], 'certReq')).toBe(true);
    expect(node.children).toHaveLength(4);
  });

  it('asks for a policy when given one, and draws a new nonce each time', () => {
    const withPolicy = parseDer(buildTimestampRequest(Buffer.from('x'), '1.2.3.4.2').der);
    expect(readOid(withPolicy.children[2], 'reqPolicy')).toBe('1.2.3.4.2');
    const nonces = new Set(Array.from({ length: 20 }, () => buildTimestampRequest(Buffer.from('x')).nonce));
    expect(nonces.size).toBe(20);
  });
});
