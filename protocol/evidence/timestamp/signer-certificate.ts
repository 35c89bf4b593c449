// Which certificate signed a time-stamp token, and whether to believe it: it must be named by the
// SignerInfo (issuer and serial number, or subject key identifier), be a time-stamping certificate
// (RFC 3161 §2.3: extended key usage critical, id-kp-timeStamping only), match the ESS
// signing-certificate-v2 attribute when present, and chain — through certificates the token carries
// — to a trusted authority certificate, every link valid at the time the token claims.
import { X509Certificate, createHash } from 'node:crypto';
import { TAG, expectTag, parseDer, readOctetString, readOid, type DerNode } from './der.js';
import { readCertificateFields, type CertificateFields } from './certificate-fields.js';
import type { SignerIdentifier } from './cms-signed-data.js';
import { TimestampError } from './timestamp-error.js';
import { OID } from './timestamp-oids.js';

/** How many certificates from the token may stand between the signer and a trusted certificate. */
const MAX_INTERMEDIATES = 4;

export interface TokenCertificate {
  x509: X509Certificate;
  fields: CertificateFields;
  der: Buffer;
}

export function readTokenCertificates(nodes: readonly DerNode[]): TokenCertificate[] {
  return nodes.map((node) => {
    const der = Buffer.from(node.der);
    let x509: X509Certificate;
    try {
      x509 = new X509Certificate(der);
    } catch (error) {
      throw new TimestampError('malformed', `a certificate in the token does not parse: ${(error as Error).message}`);
    }
    return { x509, fields: readCertificateFields(node), der };
  });
}

export function findSignerCertificate(certificates: readonly TokenCertificate[], sid: SignerIdentifier): TokenCertificate {
  const found = certificates.find((certificate) => {
    if ('subjectKeyIdentifier' in sid) {
      const extension = certificate.fields.extensions.get(OID.subjectKeyIdentifier);
      return extension !== undefined && readOctetString(parseDer(extension.value), 'subjectKeyIdentifier').equals(sid.subjectKeyIdentifier);
    }
    return certificate.fields.serialNumber === sid.serialNumber && certificate.fields.issuerDer.equals(sid.issuerDer);
  });
  if (!found) {
    const named = 'subjectKeyIdentifier' in sid ? `subject key identifier ${sid.subjectKeyIdentifier.toString('hex')}` : `serial number ${sid.serialNumber.toString(16)}`;
    throw new TimestampError('signer-certificate', `the token does not carry the signer's certificate (${named}); request it with certReq`);
  }
  return found;
}

export function checkTimestampingUsage(signer: TokenCertificate): void {
  const extension = signer.fields.extensions.get(OID.extendedKeyUsage);
  const subject = signer.x509.subject.replaceAll('\n', ', ');
  if (!extension) throw new TimestampError('signer-certificate', `the signer certificate (${subject}) has no extended key usage; a TSA certificate must have id-kp-timeStamping`);
  const purposes = expectTag(parseDer(extension.value), TAG.SEQUENCE, 'extendedKeyUsage').children.map((purpose) => readOid(purpose, 'key purpose'));
  if (purposes.length !== 1 || purposes[0] !== OID.timeStamping) {
    throw new TimestampError('signer-certificate', `the signer certificate (${subject}) has extended key usage ${purposes.join(', ')}; a TSA certificate must have id-kp-timeStamping only`);
  }
  if (!extension.critical) throw new TimestampError('signer-certificate', `the signer certificate (${subject}) has a non-critical extended key usage; RFC 3161 requires it critical`);
}

/** ESS signing-certificate-v2 (RFC 5035), when present, binds the signature to this very certificate. */
export function checkSigningCertificateAttribute(signer: TokenCertificate, values: readonly DerNode[] | undefined): void {
  if (!values) return;
  const signingCertificate = expectTag(values[0], TAG.SEQUENCE, 'signing-certificate-v2');
  const first = expectTag(expectTag(signingCertificate.children[0], TAG.SEQUENCE, 'signing-certificate-v2 certs').children[0], TAG.SEQUENCE, 'ESSCertIDv2');
  const hasAlgorithm = first.children[0]?.tag === TAG.SEQUENCE;
  const algorithm = hasAlgorithm ? readOid(first.children[0]!.children[0], 'ESSCertIDv2 hashAlgorithm') : OID.sha256;
  if (algorithm !== OID.sha256) throw new TimestampError('unsupported', `ESSCertIDv2 hash algorithm ${algorithm} is not SHA-256`);
  const certificateHash = readOctetString(first.children[hasAlgorithm ? 1 : 0], 'ESSCertIDv2 certHash');
  if (!certificateHash.equals(createHash('sha256').update(signer.der).digest())) {
    throw new TimestampError('signer-certificate', 'the signing-certificate-v2 attribute names another certificate than the one that signed');
  }
}

function checkValidAt(certificate: X509Certificate, at: Date): void {
  if (at < certificate.validFromDate || at > certificate.validToDate) {
    throw new TimestampError(
      'untrusted',
      `certificate ${certificate.subject.replaceAll('\n', ', ')} was not valid at the token's time ${at.toISOString()} (valid ${certificate.validFromDate.toISOString()} to ${certificate.validToDate.toISOString()})`,
    );
  }
}

/** Walks from the signer to a trusted certificate; throws 'untrusted' naming where the chain stops. */
export function checkChainToTrusted(signer: TokenCertificate, carried: readonly TokenCertificate[], trusted: readonly X509Certificate[], at: Date): void {
  if (trusted.length === 0) throw new TimestampError('untrusted', 'no trusted timestamp authority certificate is configured');
  let current = signer.x509;
  for (let links = 0; links <= MAX_INTERMEDIATES; links++) {
    checkValidAt(current, at);
    if (trusted.some((anchor) => anchor.fingerprint256 === current.fingerprint256)) return;
    const anchor = trusted.find((candidate) => current.checkIssued(candidate) && current.verify(candidate.publicKey));
    if (anchor) {
      checkValidAt(anchor, at);
      return;
    }
    const issued = current;
    const intermediate = carried.find(({ x509 }) => x509.ca && x509.fingerprint256 !== issued.fingerprint256 && issued.checkIssued(x509) && issued.verify(x509.publicKey));
    if (!intermediate) {
      throw new TimestampError(
        'untrusted',
        `certificate ${current.subject.replaceAll('\n', ', ')} (issued by ${current.issuer.replaceAll('\n', ', ')}) does not chain to a trusted timestamp authority certificate`,
      );
    }
    current = intermediate.x509;
  }
  throw new TimestampError('untrusted', `the signer's chain is longer than ${MAX_INTERMEDIATES} intermediate certificates`);
}
