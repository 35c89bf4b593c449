// The little of DER (X.690) that RFC 3161 time-stamps and their CMS (RFC 5652) envelope need:
// reading a TLV tree and writing the few values a request holds. A timestamp authority's answer is
// untrusted input, so the reader is strict (definite, minimal lengths; low tag numbers only; no
// bytes after the value) and bounded (size, depth, node count): a malformed or hostile answer is
// a DerError, never a crash or a runaway parse. Not a general ASN.1 library, on purpose.

/** Tags as their whole identifier octet (class, constructed bit and number). */
export const TAG = {
  BOOLEAN: 0x01,
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  UTF8_STRING: 0x0c,
  PRINTABLE_STRING: 0x13,
  IA5_STRING: 0x16,
  UTC_TIME: 0x17,
  GENERALIZED_TIME: 0x18,
  SEQUENCE: 0x30,
  SET: 0x31,
} as const;

/** Context-specific tag [n]: constructed (EXPLICIT, or IMPLICIT over a constructed type) or primitive. */
export function contextTag(number: number, constructed: boolean): number {
  return 0x80 | (constructed ? 0x20 : 0) | number;
}

export class DerError extends Error {}

export interface DerLimits {
  maxBytes: number;
  maxDepth: number;
  maxNodes: number;
}

/** Generous for a time-stamp response with a few certificates; far below anything harmful. */
export const DEFAULT_DER_LIMITS: DerLimits = { maxBytes: 256 * 1024, maxDepth: 24, maxNodes: 8192 };

export interface DerNode {
  tag: number;
  constructed: boolean;
  /** The value's bytes (a view into the input). */
  content: Buffer;
  /** The whole TLV (a view into the input): what a signature or a hash covers. */
  der: Buffer;
  /** The parsed children of a constructed value; empty for a primitive one. */
  children: DerNode[];
}

/** Parses exactly one DER value spanning all of `input`. */
export function parseDer(input: Buffer, limits: DerLimits = DEFAULT_DER_LIMITS): DerNode {
  if (input.length > limits.maxBytes) throw new DerError(`DER input of ${input.length} bytes exceeds the limit of ${limits.maxBytes}`);
  const budget = { nodes: 0 };
  const { node, end } = readNode(input, 0, 0, limits, budget);
  if (end !== input.length) throw new DerError(`${input.length - end} trailing byte(s) after the DER value`);
  return node;
}

function readNode(input: Buffer, start: number, depth: number, limits: DerLimits, budget: { nodes: number }): { node: DerNode; end: number } {
  if (depth > limits.maxDepth) throw new DerError(`DER nesting deeper than ${limits.maxDepth}`);
  if (++budget.nodes > limits.maxNodes) throw new DerError(`DER value has more than ${limits.maxNodes} elements`);
  if (start >= input.length) throw new DerError(`truncated DER: expected a tag at offset ${start}`);
  const tag = input[start]!;
  if ((tag & 0x1f) === 0x1f) throw new DerError(`unsupported high tag number at offset ${start}`);
  const { length, contentStart } = readLength(input, start + 1);
  const end = contentStart + length;
  if (end > input.length) throw new DerError(`truncated DER: value at offset ${start} claims ${length} bytes, ${input.length - contentStart} remain`);
  const constructed = (tag & 0x20) !== 0;
  const children: DerNode[] = [];
  if (constructed) {
    let offset = contentStart;
    while (offset < end) {
      const child = readNode(input.subarray(0, end), offset, depth + 1, limits, budget);
      children.push(child.node);
      offset = child.end;
    }
  }
  return { node: { tag, constructed, content: input.subarray(contentStart, end), der: input.subarray(start, end), children }, end };
}

function readLength(input: Buffer, offset: number): { length: number; contentStart: number } {
  if (offset >= input.length) throw new DerError(`truncated DER: expected a length at offset ${offset}`);
  const first = input[offset]!;
  if (first < 0x80) return { length: first, contentStart: offset + 1 };
  const count = first & 0x7f;
  if (count === 0) throw new DerError(`indefinite length at offset ${offset} (BER, not DER)`);
  if (count > 4) throw new DerError(`length of ${count} bytes at offset ${offset} is too large`);
  if (offset + 1 + count > input.length) throw new DerError(`truncated DER: length at offset ${offset}`);
  let length = 0;
  for (let i = 0; i < count; i++) length = length * 256 + input[offset + 1 + i]!;
  if (input[offset + 1] === 0 || length < 0x80) throw new DerError(`non-minimal length at offset ${offset}`);
  return { length, contentStart: offset + 1 + count };
}

// ---- Reading typed values. `what` names the field in the error, so a refusal says where it failed.

export function expectTag(node: DerNode | undefined, tag: number, what: string): DerNode {
  if (!node) throw new DerError(`${what}: missing`);
  if (node.tag !== tag) throw new DerError(`${what}: expected tag 0x${tag.toString(16)}, found 0x${node.tag.toString(16)}`);
  return node;
}

export function readInteger(node: DerNode | undefined, what: string): bigint {
  const { content } = expectTag(node, TAG.INTEGER, what);
  if (content.length === 0) throw new DerError(`${what}: empty INTEGER`);
  if (content.length > 1 && ((content[0] === 0 && content[1]! < 0x80) || (content[0] === 0xff && content[1]! >= 0x80))) {
    throw new DerError(`${what}: non-minimal INTEGER`);
  }
  let value = BigInt.asIntN(8, BigInt(content[0]!));
  for (let i = 1; i < content.length; i++) value = (value << 8n) | BigInt(content[i]!);
  return value;
}

export function readSmallInteger(node: DerNode | undefined, what: string): number {
  const value = readInteger(node, what);
  if (value < -1_000_000n || value > 1_000_000n) throw new DerError(`${what}: ${value} is out of range`);
  return Number(value);
}

export function readOid(node: DerNode | undefined, what: string): string {
  const { content } = expectTag(node, TAG.OID, what);
  if (content.length === 0 || content.length > 64) throw new DerError(`${what}: bad OBJECT IDENTIFIER length`);
  const arcs: bigint[] = [];
  let arc = 0n;
  for (let i = 0; i < content.length; i++) {
    const byte = content[i]!;
    if (arc === 0n && byte === 0x80) throw new DerError(`${what}: non-minimal OBJECT IDENTIFIER arc`);
    arc = (arc << 7n) | BigInt(byte & 0x7f);
    if ((byte & 0x80) === 0) {
      arcs.push(arc);
      arc = 0n;
    } else if (i === content.length - 1) {
      throw new DerError(`${what}: truncated OBJECT IDENTIFIER`);
    }
  }
  const first = arcs[0]!;
  const head = first < 80n ? [first / 40n, first % 40n] : [2n, first - 80n];
  return [...head, ...arcs.slice(1)].join('.');
}

export function readOctetString(node: DerNode | undefined, what: string): Buffer {
  return expectTag(node, TAG.OCTET_STRING, what).content;
}

export function readBoolean(node: DerNode | undefined, what: string): boolean {
  const { content } = expectTag(node, TAG.BOOLEAN, what);
  if (content.length !== 1 || (content[0] !== 0 && content[0] !== 0xff)) throw new DerError(`${what}: BOOLEAN is not DER`);
  return content[0] === 0xff;
}

/** The set bits of a BIT STRING, as bit numbers (bit 0 is the first, most significant bit). */
export function readBitNumbers(node: DerNode | undefined, what: string): number[] {
  const { content } = expectTag(node, TAG.BIT_STRING, what);
  if (content.length === 0 || content[0]! > 7) throw new DerError(`${what}: malformed BIT STRING`);
  const bits: number[] = [];
  for (let i = 0; i < (content.length - 1) * 8 - content[0]!; i++) {
    if ((content[1 + (i >> 3)]! >> (7 - (i & 7))) & 1) bits.push(i);
  }
  return bits;
}

const GENERALIZED_TIME = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(?:\.(\d{1,9}))?Z$/;

/** GeneralizedTime as DER requires it (UTC, 'Z', seconds present, fraction without trailing zeros). */
export function readGeneralizedTime(node: DerNode | undefined, what: string): Date {
  const text = expectTag(node, TAG.GENERALIZED_TIME, what).content.toString('latin1');
  const match = GENERALIZED_TIME.exec(text);
  if (!match || match[7]?.endsWith('0')) throw new DerError(`${what}: '${text}' is not a DER GeneralizedTime`);
  const [, year, month, day, hour, minute, second, fraction] = match;
  const millis = fraction ? Number(fraction.padEnd(3, '0').slice(0, 3)) : 0;
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second), millis));
  if (date.getUTCMonth() !== Number(month) - 1 || date.getUTCDate() !== Number(day)) throw new DerError(`${what}: '${text}' is not a calendar date`);
  return date;
}

/** The text of a directory string (UTF8String, PrintableString, IA5String). */
export function readText(node: DerNode, what: string): string {
  if (node.tag === TAG.UTF8_STRING) return node.content.toString('utf8');
  if (node.tag === TAG.PRINTABLE_STRING || node.tag === TAG.IA5_STRING) return node.content.toString('latin1');
  throw new DerError(`${what}: not a text string (tag 0x${node.tag.toString(16)})`);
}

/** The nth child, or a DerError naming the field. */
export function child(node: DerNode, index: number, what: string): DerNode {
  const found = node.children[index];
  if (!found) throw new DerError(`${what}: missing`);
  return found;
}

// ---- Writing.

function encodeLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

export function encodeTlv(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), encodeLength(content.length), content]);
}

export const encodeSequence = (...items: Buffer[]): Buffer => encodeTlv(TAG.SEQUENCE, Buffer.concat(items));
export const encodeNull = (): Buffer => encodeTlv(TAG.NULL, Buffer.alloc(0));
export const encodeBoolean = (value: boolean): Buffer => encodeTlv(TAG.BOOLEAN, Buffer.from([value ? 0xff : 0]));
export const encodeOctetString = (value: Buffer): Buffer => encodeTlv(TAG.OCTET_STRING, value);

/** SET OF: DER sorts the encoded members. */
export function encodeSet(...items: Buffer[]): Buffer {
  return encodeTlv(TAG.SET, Buffer.concat([...items].sort(Buffer.compare)));
}

/** [n] EXPLICIT: the whole inner TLV wrapped in a constructed context tag. */
export function encodeExplicit(number: number, inner: Buffer): Buffer {
  return encodeTlv(contextTag(number, true), inner);
}

/** [n] IMPLICIT: the inner value's tag replaced, its constructed bit kept. */
export function encodeImplicit(number: number, inner: Buffer): Buffer {
  const node = parseDer(inner);
  return encodeTlv(contextTag(number, node.constructed), node.content);
}

export function encodeInteger(value: bigint): Buffer {
  if (value === 0n) return encodeTlv(TAG.INTEGER, Buffer.from([0]));
  const bytes: number[] = [];
  let rest = value;
  // Two's complement, minimal: stop once the remaining value is all sign bits and the top byte agrees.
  for (;;) {
    const byte = Number(BigInt.asUintN(8, rest));
    bytes.unshift(byte);
    rest >>= 8n;
    if ((rest === 0n && byte < 0x80) || (rest === -1n && byte >= 0x80)) break;
  }
  return encodeTlv(TAG.INTEGER, Buffer.from(bytes));
}

/** A non-negative INTEGER from big-endian magnitude bytes (a nonce, a serial number). */
export function encodeUnsignedInteger(magnitude: Buffer): Buffer {
  return encodeInteger(magnitude.length === 0 ? 0n : BigInt(`0x${magnitude.toString('hex')}`));
}

export function encodeOid(dotted: string): Buffer {
  if (!/^[0-2]\.\d+(\.\d+)*$/.test(dotted)) throw new DerError(`'${dotted}' is not an OBJECT IDENTIFIER`);
  const arcs = dotted.split('.').map(BigInt);
  const values = [arcs[0]! * 40n + arcs[1]!, ...arcs.slice(2)];
  const bytes: number[] = [];
  for (const value of values) {
    const groups: number[] = [Number(value & 0x7fn)];
    for (let rest = value >> 7n; rest > 0n; rest >>= 7n) groups.unshift(Number(rest & 0x7fn) | 0x80);
    bytes.push(...groups);
  }
  return encodeTlv(TAG.OID, Buffer.from(bytes));
}
