// Why a time-stamp was refused. Every refusal has a reason a caller can branch on and a message that
// names what is wrong (the field, the status, the certificate), because an auditor reads it.
export type TimestampRefusal =
  | 'malformed' // the DER does not parse or lacks a required field
  | 'status' // the authority did not grant the request (PKIStatus, failInfo)
  | 'unsupported' // an algorithm or a version we do not accept
  | 'imprint-mismatch' // the token does not cover these data
  | 'nonce-mismatch' // the token answers another request (a replayed response)
  | 'signature' // the CMS signature or its signed attributes do not hold
  | 'signer-certificate' // the signer's certificate is missing or not a time-stamping certificate
  | 'untrusted' // the signer does not chain to a trusted authority certificate
  | 'transport'; // the HTTP exchange failed (status, size, time, content type)

export class TimestampError extends Error {
  constructor(
    readonly reason: TimestampRefusal,
    message: string,
  ) {
    super(message);
    this.name = 'TimestampError';
  }
}
