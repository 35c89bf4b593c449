// Verifies an RFC 3161 time-stamp token against the data it should cover: the one check both the
// server (when it receives a token) and every verifier (`kubectl restoretest verify`, later) run.
// In order: the CMS structure, the TSTInfo's hash and nonce, the signed attributes, the signature,
// the signer certificate's purpose and its chain to a trusted authority at the token's time.
import { createHash, X509Certificate } from 'node:crypto';
import { DerError, DEFAULT_DER_LIMITS, type DerLimits } from './der.js';
import { checkSignature, checkSignedAttributes, readSignedData, signedAttributeValues } from './cms-signed-data.js';
import { checkChainToTrusted, checkSigningCertificateAttribute, checkTimestampingUsage, findSignerCertificate, readTokenCertificates } from './signer-certificate.js';
import { TimestampError } from './timestamp-error.js';
import { OID } from './timestamp-oids.js';
import { readTstInfo } from './tst-info.js';

export interface VerifiedTimestamp {
  /** When the authority says it saw the hash. */
  genTime: Date;
  /** The token's serial number, hex. */
  serialNumber: string;
  /** The authority's policy OID. */
  policy: string;
  /** The TSTInfo's tsa field, when the authority names itself. */
  tsaName?: string;
  /** The signer certificate's subject. */
  signer: string;
  /** The token (CMS ContentInfo DER) and its base64, the form to store. */
  token: Buffer;
  tokenBase64: string;
}

export interface TokenExpectations {
  /** The nonce of the request this token answers; omitted when checking a stored token. */
  nonce?: bigint;
  limits?: DerLimits;
}

/** A stored token (DER or its base64) against the data it time-stamps. */
export function verifyTimestampToken(
  token: Buffer | string,
  data: Buffer,
  trusted: X509Certificate | readonly X509Certificate[],
  expectations: TokenExpectations = {},
): VerifiedTimestamp {
  const imprint = createHash('sha256').update(data).digest();
  return verifyTokenForImprint(typeof token === 'string' ? Buffer.from(token, 'base64') : token, imprint, Array.isArray(trusted) ? trusted : [trusted as X509Certificate], expectations);
}

export function verifyTokenForImprint(token: Buffer, imprint: Buffer, trusted: readonly X509Certificate[], expectations: TokenExpectations = {}): VerifiedTimestamp {
  try {
    return verifyToken(token, imprint, trusted, expectations);
  } catch (error) {
    if (error instanceof DerError) throw new TimestampError('malformed', `malformed time-stamp token: ${error.message}`);
    throw error;
  }
}

function verifyToken(token: Buffer, imprint: Buffer, trusted: readonly X509Certificate[], expectations: TokenExpectations): VerifiedTimestamp {
  const signedData = readSignedData(token, expectations.limits ?? DEFAULT_DER_LIMITS);
  if (signedData.eContentType !== OID.tstInfo) throw new TimestampError('malformed', `the token's content type is ${signedData.eContentType}, not id-ct-TSTInfo`);
  const info = readTstInfo(signedData.eContent);
  if (info.hashAlgorithm !== OID.sha256) throw new TimestampError('unsupported', `the token's message imprint uses ${info.hashAlgorithm}, not SHA-256`);
  if (!info.hashedMessage.equals(imprint)) {
    throw new TimestampError('imprint-mismatch', `the token's message imprint ${info.hashedMessage.toString('hex')} is not the SHA-256 of the data (${imprint.toString('hex')}): the data changed or the token is for other data`);
  }
  if (expectations.nonce !== undefined && info.nonce !== expectations.nonce) {
    throw new TimestampError('nonce-mismatch', `the token's nonce ${info.nonce?.toString(16) ?? '(none)'} is not the request's ${expectations.nonce.toString(16)}: a replayed or misdirected response`);
  }
  const attributes = signedAttributeValues(signedData.signer);
  checkSignedAttributes(signedData, attributes);
  const certificates = readTokenCertificates(signedData.certificates);
  const signer = findSignerCertificate(certificates, signedData.signer.sid);
  checkSignature(signedData.signer, signer.x509.publicKey);
  checkSigningCertificateAttribute(signer, attributes.get(OID.signingCertificateV2));
  checkTimestampingUsage(signer);
  checkChainToTrusted(signer, certificates, trusted, info.genTime);
  return {
    genTime: info.genTime,
    serialNumber: info.serialNumber.toString(16),
    policy: info.policy,
    ...(info.tsaName === undefined ? {} : { tsaName: info.tsaName }),
    signer: signer.x509.subject.replaceAll('\n', ', '),
    token: Buffer.from(token),
    tokenBase64: token.toString('base64'),
  };
}
