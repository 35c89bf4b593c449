// The fields of an X.509 certificate that node:crypto's X509Certificate does not expose but a
// time-stamp check needs: the issuer Name and serial number as DER (to find the signer named by a
// CMS IssuerAndSerialNumber), and the extensions with their criticality (RFC 3161 requires the
// extended key usage to be critical). Signatures, validity and issuance are left to node:crypto.
import { DerError, TAG, child, contextTag, expectTag, readBoolean, readInteger, readOctetString, readOid, readText, type DerNode } from './der.js';
import { NAME_ATTRIBUTES } from './timestamp-oids.js';

export interface CertificateExtension {
  critical: boolean;
  value: Buffer;
}

export interface CertificateFields {
  serialNumber: bigint;
  issuerDer: Buffer;
  extensions: Map<string, CertificateExtension>;
}

export function readCertificateFields(certificate: DerNode): CertificateFields {
  const tbs = expectTag(child(expectTag(certificate, TAG.SEQUENCE, 'certificate'), 0, 'tbsCertificate'), TAG.SEQUENCE, 'tbsCertificate');
  const versioned = tbs.children[0]?.tag === contextTag(0, true) ? 1 : 0;
  const serialNumber = readInteger(tbs.children[versioned], 'certificate serialNumber');
  const issuer = expectTag(tbs.children[versioned + 2], TAG.SEQUENCE, 'certificate issuer');
  const extensions = new Map<string, CertificateExtension>();
  const extensionsNode = tbs.children.slice(versioned + 6).find((node) => node.tag === contextTag(3, true));
  if (extensionsNode) {
    for (const extension of expectTag(child(extensionsNode, 0, 'extensions'), TAG.SEQUENCE, 'extensions').children) {
      expectTag(extension, TAG.SEQUENCE, 'extension');
      const id = readOid(extension.children[0], 'extension id');
      const hasCritical = extension.children[1]?.tag === TAG.BOOLEAN;
      const critical = hasCritical ? readBoolean(extension.children[1], `extension ${id} critical`) : false;
      const value = readOctetString(extension.children[hasCritical ? 2 : 1], `extension ${id} value`);
      if (extensions.has(id)) throw new DerError(`certificate repeats extension ${id}`);
      extensions.set(id, { critical, value });
    }
  }
  return { serialNumber, issuerDer: issuer.der, extensions };
}

/** A Name as 'CN=…, O=…' (attributes we do not know by their OID); for messages, never compared. */
export function nameText(name: DerNode): string {
  const parts: string[] = [];
  for (const rdn of expectTag(name, TAG.SEQUENCE, 'Name').children) {
    for (const attribute of expectTag(rdn, TAG.SET, 'RelativeDistinguishedName').children) {
      const type = readOid(child(attribute, 0, 'attribute type'), 'attribute type');
      let value: string;
      try {
        value = readText(child(attribute, 1, 'attribute value'), 'attribute value');
      } catch {
        value = `#${child(attribute, 1, 'attribute value').der.toString('hex')}`;
      }
      parts.push(`${NAME_ATTRIBUTES[type] ?? type}=${value}`);
    }
  }
  return parts.join(', ');
}
