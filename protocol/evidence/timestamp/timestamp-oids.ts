// The object identifiers RFC 3161, RFC 5652, RFC 5280 and RFC 5035 give the values a time-stamp
// token carries: one table, so every reader and the request builder spell them the same way.
export const OID = {
  sha256: '2.16.840.1.101.3.4.2.1',
  signedData: '1.2.840.113549.1.7.2',
  tstInfo: '1.2.840.113549.1.9.16.1.4',
  contentTypeAttribute: '1.2.840.113549.1.9.3',
  messageDigestAttribute: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  rsaEncryption: '1.2.840.113549.1.1.1',
  sha256WithRsa: '1.2.840.113549.1.1.11',
  ecPublicKey: '1.2.840.10045.2.1',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  extendedKeyUsage: '2.5.29.37',
  subjectKeyIdentifier: '2.5.29.14',
  timeStamping: '1.3.6.1.5.5.7.3.8',
} as const;

/** Short names of the attribute types a TSA's name usually has, for printing it. */
export const NAME_ATTRIBUTES: Readonly<Record<string, string>> = {
  '2.5.4.3': 'CN',
  '2.5.4.6': 'C',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
};
