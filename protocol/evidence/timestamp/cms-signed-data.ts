// The CMS SignedData (RFC 5652) a time-stamp token is: read into its parts, and its signature
// checked the way RFC 5652 §5.4 defines it — over the DER of the signed attributes re-tagged as a
// SET OF (0x31), which must hold content-type = id-ct-TSTInfo and message-digest = the hash of the
// encapsulated TSTInfo. RFC 3161 allows exactly one SignerInfo: the authority's.
import { createHash, verify, type KeyObject } from 'node:crypto';
import { DerError, TAG, child, contextTag, expectTag, parseDer, readInteger, readOctetString, readOid, readSmallInteger, type DerLimits, type DerNode } from './der.js';
import { TimestampError } from './timestamp-error.js';
import { OID } from './timestamp-oids.js';

export type SignerIdentifier = { issuerDer: Buffer; serialNumber: bigint } | { subjectKeyIdentifier: Buffer };

export interface SignerInfo {
  sid: SignerIdentifier;
  digestAlgorithm: string;
  /** The [0] IMPLICIT signedAttrs as they were sent. */
  signedAttributes: DerNode;
  signatureAlgorithm: string;
  signature: Buffer;
}

export interface SignedData {
  eContentType: string;
  eContent: Buffer;
  /** The certificates the token carries (each a Certificate SEQUENCE). */
  certificates: DerNode[];
  signer: SignerInfo;
}

export function readSignedData(token: Buffer, limits?: DerLimits): SignedData {
  const contentInfo = expectTag(parseDer(token, limits), TAG.SEQUENCE, 'ContentInfo');
  const contentType = readOid(contentInfo.children[0], 'ContentInfo contentType');
  if (contentType !== OID.signedData) throw new DerError(`ContentInfo contentType is ${contentType}, not signedData`);
  const signedData = expectTag(child(expectTag(contentInfo.children[1], contextTag(0, true), 'ContentInfo content'), 0, 'SignedData'), TAG.SEQUENCE, 'SignedData');
  readSmallInteger(signedData.children[0], 'SignedData version');
  expectTag(signedData.children[1], TAG.SET, 'SignedData digestAlgorithms');
  const encapsulated = expectTag(signedData.children[2], TAG.SEQUENCE, 'encapContentInfo');
  const eContentType = readOid(encapsulated.children[0], 'eContentType');
  const eContent = readOctetString(child(expectTag(encapsulated.children[1], contextTag(0, true), 'eContent'), 0, 'eContent'), 'eContent');
  let certificates: DerNode[] = [];
  let signerInfos: DerNode | undefined;
  for (const field of signedData.children.slice(3)) {
    if (field.tag === contextTag(0, true)) certificates = field.children.filter((choice) => choice.tag === TAG.SEQUENCE);
    else if (field.tag === TAG.SET) signerInfos = field;
  }
  if (!signerInfos) throw new DerError('SignedData signerInfos: missing');
  if (signerInfos.children.length !== 1) throw new DerError(`SignedData has ${signerInfos.children.length} SignerInfos; a time-stamp token has exactly one`);
  return { eContentType, eContent, certificates, signer: readSignerInfo(signerInfos.children[0]!) };
}

function readSignerInfo(node: DerNode): SignerInfo {
  const info = expectTag(node, TAG.SEQUENCE, 'SignerInfo');
  readSmallInteger(info.children[0], 'SignerInfo version');
  const sidNode = child(info, 1, 'SignerInfo sid');
  let sid: SignerIdentifier;
  if (sidNode.tag === TAG.SEQUENCE) {
    sid = { issuerDer: expectTag(sidNode.children[0], TAG.SEQUENCE, 'sid issuer').der, serialNumber: readInteger(sidNode.children[1], 'sid serialNumber') };
  } else if (sidNode.tag === contextTag(0, false)) {
    sid = { subjectKeyIdentifier: sidNode.content };
  } else {
    throw new DerError(`SignerInfo sid: unexpected tag 0x${sidNode.tag.toString(16)}`);
  }
  const digestAlgorithm = readOid(child(expectTag(info.children[2], TAG.SEQUENCE, 'SignerInfo digestAlgorithm'), 0, 'digestAlgorithm'), 'digestAlgorithm');
  const signedAttributes = expectTag(info.children[3], contextTag(0, true), 'SignerInfo signedAttrs');
  const signatureAlgorithm = readOid(child(expectTag(info.children[4], TAG.SEQUENCE, 'SignerInfo signatureAlgorithm'), 0, 'signatureAlgorithm'), 'signatureAlgorithm');
  const signature = readOctetString(info.children[5], 'SignerInfo signature');
  return { sid, digestAlgorithm, signedAttributes, signatureAlgorithm, signature };
}

/** The signed attributes by type; each must appear once (RFC 5652 §5.3). */
export function signedAttributeValues(signer: SignerInfo): Map<string, DerNode[]> {
  const attributes = new Map<string, DerNode[]>();
  for (const attribute of signer.signedAttributes.children) {
    expectTag(attribute, TAG.SEQUENCE, 'signed attribute');
    const type = readOid(attribute.children[0], 'signed attribute type');
    if (attributes.has(type)) throw new DerError(`signed attribute ${type} appears twice`);
    attributes.set(type, expectTag(attribute.children[1], TAG.SET, `signed attribute ${type} values`).children);
  }
  return attributes;
}

/** content-type and message-digest: the signature covers the TSTInfo only through these two. */
export function checkSignedAttributes(signedData: SignedData, attributes: Map<string, DerNode[]>): void {
  const contentType = attributes.get(OID.contentTypeAttribute);
  if (contentType?.length !== 1) throw new TimestampError('signature', 'the signed attributes lack a single content-type attribute');
  const signedType = readOid(contentType[0], 'content-type attribute');
  if (signedType !== OID.tstInfo) throw new TimestampError('signature', `the signed content-type attribute is ${signedType}, not id-ct-TSTInfo`);
  const digest = attributes.get(OID.messageDigestAttribute);
  if (digest?.length !== 1) throw new TimestampError('signature', 'the signed attributes lack a single message-digest attribute');
  const expected = createHash('sha256').update(signedData.eContent).digest();
  if (!readOctetString(digest[0], 'message-digest attribute').equals(expected)) {
    throw new TimestampError('signature', 'message-digest attribute does not match the hash of the TSTInfo: the signed content was altered');
  }
}

/** Verifies the SignerInfo's signature with the signer's key: RSA PKCS#1 v1.5 or ECDSA P-256, SHA-256. */
export function checkSignature(signer: SignerInfo, publicKey: KeyObject): void {
  if (signer.digestAlgorithm !== OID.sha256) throw new TimestampError('unsupported', `SignerInfo digestAlgorithm ${signer.digestAlgorithm} is not SHA-256`);
  const rsa = signer.signatureAlgorithm === OID.rsaEncryption || signer.signatureAlgorithm === OID.sha256WithRsa;
  const ecdsa = signer.signatureAlgorithm === OID.ecdsaWithSha256;
  if (rsa ? publicKey.asymmetricKeyType !== 'rsa' : !ecdsa || publicKey.asymmetricKeyType !== 'ec') {
    throw new TimestampError('unsupported', `signature algorithm ${signer.signatureAlgorithm} with a ${publicKey.asymmetricKeyType} key is not supported (RSA PKCS#1 v1.5 or ECDSA P-256 with SHA-256)`);
  }
  if (ecdsa && publicKey.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new TimestampError('unsupported', `ECDSA curve ${publicKey.asymmetricKeyDetails?.namedCurve} is not supported (P-256 only)`);
  }
  // RFC 5652 §5.4: the signature is over the attributes' DER with the SET OF tag, not the [0] they travel in.
  const signedBytes = Buffer.from(signer.signedAttributes.der);
  signedBytes[0] = TAG.SET;
  let valid = false;
  try {
    valid = verify('sha256', signedBytes, publicKey, signer.signature);
  } catch {
    valid = false;
  }
  if (!valid) throw new TimestampError('signature', 'the SignerInfo signature does not verify with the signer certificate\'s key');
}
