// TimeStampResp (RFC 3161 §2.4.2): the authority's status and, when it granted the request, the
// token. Anything but granted (0) or grantedWithMods (1) is a refusal that names the status, the
// failure bits and the authority's own text.
import { DerError, TAG, child, expectTag, parseDer, readBitNumbers, readSmallInteger, readText, type DerLimits, DEFAULT_DER_LIMITS } from './der.js';
import { TimestampError } from './timestamp-error.js';

const STATUS_NAMES = ['granted', 'grantedWithMods', 'rejection', 'waiting', 'revocationWarning', 'revocationNotification'];

const FAILURE_NAMES: Readonly<Record<number, string>> = {
  0: 'badAlg',
  2: 'badRequest',
  5: 'badDataFormat',
  14: 'timeNotAvailable',
  15: 'unacceptedPolicy',
  16: 'unacceptedExtension',
  17: 'addInfoNotAvailable',
  25: 'systemFailure',
};

export interface GrantedResponse {
  status: 'granted' | 'grantedWithMods';
  /** The TimeStampToken's DER (a CMS ContentInfo), as stored and verified later. */
  token: Buffer;
}

export function readTimestampResponse(der: Buffer, limits: DerLimits = DEFAULT_DER_LIMITS): GrantedResponse {
  let status: number;
  let statusInfo;
  let response;
  try {
    response = expectTag(parseDer(der, limits), TAG.SEQUENCE, 'TimeStampResp');
    statusInfo = expectTag(child(response, 0, 'PKIStatusInfo'), TAG.SEQUENCE, 'PKIStatusInfo');
    status = readSmallInteger(statusInfo.children[0], 'PKIStatus');
  } catch (error) {
    if (error instanceof DerError) throw new TimestampError('malformed', `malformed time-stamp response: ${error.message}`);
    throw error;
  }
  if (status !== 0 && status !== 1) {
    const texts: string[] = [];
    let failures: number[] = [];
    for (const field of statusInfo.children.slice(1)) {
      try {
        if (field.tag === TAG.SEQUENCE) texts.push(...field.children.slice(0, 8).map((text) => readText(text, 'statusString')));
        else if (field.tag === TAG.BIT_STRING) failures = readBitNumbers(field, 'failInfo');
      } catch {
        // The refusal is what matters; an unreadable explanation is left out.
      }
    }
    const name = STATUS_NAMES[status] ?? 'unknown';
    const failInfo = failures.length > 0 ? `, failInfo ${failures.map((bit) => FAILURE_NAMES[bit] ?? `bit ${bit}`).join(', ')}` : '';
    const said = texts.length > 0 ? `: "${texts.join('; ').slice(0, 300)}"` : '';
    throw new TimestampError('status', `the timestamp authority did not grant the request: status ${status} (${name})${failInfo}${said}`);
  }
  const token = response.children[1];
  if (!token) throw new TimestampError('malformed', `malformed time-stamp response: status ${STATUS_NAMES[status]} but no timeStampToken`);
  return { status: status === 0 ? 'granted' : 'grantedWithMods', token: Buffer.from(token.der) };
}
