// TSTInfo (RFC 3161 §2.4.2): what the authority asserts — which hash it saw, when, under which
// policy, with which serial number and nonce. Parsed from the token's signed content.
import { DerError, TAG, child, contextTag, expectTag, parseDer, readGeneralizedTime, readInteger, readOctetString, readOid, readSmallInteger, readText, type DerNode } from './der.js';
import { nameText } from './certificate-fields.js';

export interface TstInfo {
  policy: string;
  hashAlgorithm: string;
  hashedMessage: Buffer;
  serialNumber: bigint;
  genTime: Date;
  nonce?: bigint;
  tsaName?: string;
}

export function readTstInfo(der: Buffer): TstInfo {
  const info = expectTag(parseDer(der), TAG.SEQUENCE, 'TSTInfo');
  const version = readSmallInteger(info.children[0], 'TSTInfo version');
  if (version !== 1) throw new DerError(`TSTInfo version ${version} (only 1 exists)`);
  const policy = readOid(info.children[1], 'TSTInfo policy');
  const imprint = expectTag(info.children[2], TAG.SEQUENCE, 'TSTInfo messageImprint');
  const algorithm = expectTag(child(imprint, 0, 'messageImprint hashAlgorithm'), TAG.SEQUENCE, 'messageImprint hashAlgorithm');
  const result: TstInfo = {
    policy,
    hashAlgorithm: readOid(algorithm.children[0], 'messageImprint hashAlgorithm'),
    hashedMessage: readOctetString(imprint.children[1], 'messageImprint hashedMessage'),
    serialNumber: readInteger(info.children[3], 'TSTInfo serialNumber'),
    genTime: readGeneralizedTime(info.children[4], 'TSTInfo genTime'),
  };
  // The optional fields come in a fixed order, each with its own tag: accuracy, ordering, nonce, tsa, extensions.
  for (const field of info.children.slice(5)) {
    if (field.tag === TAG.INTEGER) result.nonce = readInteger(field, 'TSTInfo nonce');
    else if (field.tag === contextTag(0, true)) result.tsaName = generalNameText(child(field, 0, 'TSTInfo tsa'));
  }
  return result;
}

/** A GeneralName as text: a directoryName ('CN=…') or one of the string forms. */
function generalNameText(name: DerNode): string {
  if (name.tag === contextTag(4, true)) return nameText(child(name, 0, 'directoryName'));
  // rfc822Name [1], dNSName [2], uniformResourceIdentifier [6]: IA5String, implicitly tagged.
  if (name.tag === contextTag(1, false) || name.tag === contextTag(2, false) || name.tag === contextTag(6, false)) {
    return readText({ ...name, tag: TAG.IA5_STRING }, 'TSTInfo tsa');
  }
  return `[GeneralName tag 0x${name.tag.toString(16)}]`;
}
