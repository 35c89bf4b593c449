// Front-proxy (request-header) authentication for the aggregated API (decision 0008): when
// kube-apiserver proxies /apis/api.rehearsal.dev/v1/... to Rehearsal, it has already
// authenticated the caller and says who it was in headers (X-Remote-User, X-Remote-Group,
// X-Remote-Extra-*). Those headers are believed only when the TLS client certificate of the
// connection verifies against the request-header CA and its common name is one of the allowed
// names; both come from the ConfigMap kube-system/extension-apiserver-authentication, exactly as
// k8s.io/apiserver's requestheader authenticator reads them. Anyone else sending the same
// headers is nobody.
//
// The identity is attached to the request object itself (a WeakMap), by the aggregation listener
// only: the plain HTTP listener never sets it, so on port 8080 the headers mean nothing at all.
import type { IncomingMessage } from 'node:http';
import type { ReviewedUser } from './access-review.js';

export const REQUEST_HEADER_CONFIGMAP = { namespace: 'kube-system', name: 'extension-apiserver-authentication' };

/** What the ConfigMap says about trusted front proxies. */
export interface RequestHeaderSettings {
  /** PEM bundle the front proxy's client certificate must verify against. */
  clientCa: string;
  /** Accepted certificate common names; empty = any certificate the CA signed. */
  allowedNames: string[];
  usernameHeaders: string[];
  uidHeaders: string[];
  groupHeaders: string[];
  extraHeaderPrefixes: string[];
}

function stringList(text: string | undefined): string[] {
  if (!text) return [];
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.filter((item): item is string => typeof item === 'string' && item !== '') : [];
  } catch {
    return [];
  }
}

/**
 * The request-header settings of the ConfigMap's data, or undefined when it names no CA or no
 * username header (then no request can be trusted: the cluster has no front proxy configured).
 */
export function requestHeaderSettingsOf(data: Record<string, string> | undefined): RequestHeaderSettings | undefined {
  const clientCa = data?.['requestheader-client-ca-file']?.trim();
  const usernameHeaders = stringList(data?.['requestheader-username-headers']);
  if (!clientCa || usernameHeaders.length === 0) return undefined;
  return {
    clientCa,
    allowedNames: stringList(data?.['requestheader-allowed-names']),
    usernameHeaders,
    uidHeaders: stringList(data?.['requestheader-uid-headers']),
    groupHeaders: stringList(data?.['requestheader-group-headers']),
    extraHeaderPrefixes: stringList(data?.['requestheader-extra-headers-prefix']),
  };
}

/** What the TLS layer established about the connection's client certificate. */
export interface PeerCertificate {
  /** The certificate verified against the request-header CA (Node's socket.authorized). */
  verified: boolean;
  commonName: string | undefined;
}

/** Why a request on the aggregation listener is not trusted, for the 401 and the log. */
export type FrontProxyRejection = 'not-configured' | 'no-verified-certificate' | 'name-not-allowed' | 'no-user';

export type FrontProxyOutcome = { user: ReviewedUser } | { rejected: FrontProxyRejection };

type Headers = Record<string, string[] | undefined>;

function values(headers: Headers, name: string): string[] {
  return (headers[name.toLowerCase()] ?? []).map((value) => value.trim()).filter(Boolean);
}

/** The user a trusted front proxy names, like k8s.io/apiserver's requestheader authenticator. */
export function authenticateFrontProxy(
  peer: PeerCertificate,
  headers: Headers,
  settings: RequestHeaderSettings | undefined,
): FrontProxyOutcome {
  if (!settings) return { rejected: 'not-configured' };
  if (!peer.verified) return { rejected: 'no-verified-certificate' };
  if (settings.allowedNames.length > 0 && !settings.allowedNames.includes(peer.commonName ?? '')) {
    return { rejected: 'name-not-allowed' };
  }
  const username = settings.usernameHeaders.map((name) => values(headers, name)[0]).find(Boolean);
  if (!username) return { rejected: 'no-user' };
  const uid = settings.uidHeaders.map((name) => values(headers, name)[0]).find(Boolean);
  const groups = settings.groupHeaders.flatMap((name) => values(headers, name));
  const extra: Record<string, string[]> = {};
  for (const [header, headerValues] of Object.entries(headers)) {
    for (const prefix of settings.extraHeaderPrefixes) {
      if (!header.startsWith(prefix.toLowerCase()) || !headerValues) continue;
      let key = header.slice(prefix.length);
      try {
        key = decodeURIComponent(key);
      } catch {
        // not percent-encoded: used as it is
      }
      extra[key] = [...(extra[key] ?? []), ...headerValues];
    }
  }
  return {
    user: {
      username,
      ...(uid ? { uid } : {}),
      groups,
      ...(Object.keys(extra).length > 0 ? { extra } : {}),
    },
  };
}

const frontProxyUsers = new WeakMap<IncomingMessage, ReviewedUser>();

/** Called by the aggregation listener only, after authenticateFrontProxy accepted the request. */
export function setFrontProxyUser(request: IncomingMessage, user: ReviewedUser): void {
  frontProxyUsers.set(request, user);
}

/** The user kube-apiserver vouched for, if this request came through the aggregation layer. */
export function frontProxyUserOf(request: IncomingMessage): ReviewedUser | undefined {
  return frontProxyUsers.get(request);
}
