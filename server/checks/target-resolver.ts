import { isIPv4 } from 'node:net';

// THE seam that decides where a network probe (httpGet, tcpSocket, sqlQuery) connects.
//
// Checks never build host names themselves: they ask a TargetResolver for "service S, port P in
// sandbox namespace N" and dial exactly what it returns.
//
// - ClusterDnsTargetResolver (production): `S.N.<suffix>:P`, suffix default "svc" (set e.g.
//   "svc.cluster.local" for clusters whose resolv.conf search path does not cover it). Probes go
//   through the Service's DNS name, so kube-proxy/the CNI pick a ready endpoint and the sandbox
//   NetworkPolicy (which admits the Rehearsal API pods) applies. A pod IP is never used.
// - StaticTargetResolver (tests and the local KWOK demo): a fixed map from "service:port" (or the
//   more specific "namespace/service:port") to a LOOPBACK "host:port". KWOK pods are fake and their
//   IPs must never be dialed, so this resolver refuses any target that is not loopback and refuses
//   services it has no entry for (no fallback to DNS).

export interface ServiceTarget {
  /** The sandbox namespace (never a source namespace). */
  namespace: string;
  service: string;
  port: number;
}

export interface ResolvedTarget {
  host: string;
  port: number;
}

export class TargetResolutionError extends Error {
  override readonly name = 'TargetResolutionError';
}

export interface TargetResolver {
  /** Where to connect for a sandbox Service port; throws TargetResolutionError when it cannot say. */
  resolve(target: ServiceTarget): ResolvedTarget;
}

// RFC 1123 label (namespaces) and RFC 1035 label (Service names): validating both keeps a check
// from smuggling an IP address or another domain into the host name.
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUFFIX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function assertPort(port: number, what: string): void {
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new TargetResolutionError(`${what}: port ${String(port)} is not in 1-65535`);
  }
}

export class ClusterDnsTargetResolver implements TargetResolver {
  private readonly dnsSuffix: string;

  constructor(options: { dnsSuffix?: string } = {}) {
    const suffix = (options.dnsSuffix ?? 'svc').replace(/^\.+|\.+$/g, '');
    if (!DNS_SUFFIX.test(suffix)) throw new TargetResolutionError(`invalid cluster DNS suffix "${suffix}"`);
    this.dnsSuffix = suffix;
  }

  resolve({ namespace, service, port }: ServiceTarget): ResolvedTarget {
    if (!DNS1035_LABEL.test(service) || service.length > 63) {
      throw new TargetResolutionError(`"${service}" is not a valid Service name`);
    }
    if (!DNS1123_LABEL.test(namespace) || namespace.length > 63) {
      throw new TargetResolutionError(`"${namespace}" is not a valid namespace name`);
    }
    assertPort(port, `Service ${service}`);
    return { host: `${service}.${namespace}.${this.dnsSuffix}`, port };
  }
}

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || (isIPv4(host) && host.startsWith('127.'));
}

function parseLoopbackTarget(key: string, value: string): ResolvedTarget {
  const match = /^(.*):(\d+)$/.exec(value.trim());
  const host = (match?.[1] ?? '').replace(/^\[(.*)\]$/, '$1');
  if (!match || !isLoopbackHost(host)) {
    throw new TargetResolutionError(
      `static target for "${key}" must be a loopback host:port (127.x.x.x, [::1] or localhost), got "${value}"`,
    );
  }
  const port = Number(match[2]);
  assertPort(port, `static target for "${key}"`);
  return { host, port };
}

export class StaticTargetResolver implements TargetResolver {
  private readonly targets: ReadonlyMap<string, ResolvedTarget>;

  /**
   * @param targets keys "service:port" or "namespace/service:port" (the latter wins), values
   *   loopback "host:port", e.g. { "web:80": "127.0.0.1:18080" }.
   */
  constructor(targets: Readonly<Record<string, string>>) {
    const parsed = new Map<string, ResolvedTarget>();
    for (const [key, value] of Object.entries(targets)) {
      if (!/^([a-z0-9-]+\/)?[a-z0-9-]+:\d+$/.test(key)) {
        throw new TargetResolutionError(
          `static target key "${key}" must be "service:port" or "namespace/service:port"`,
        );
      }
      parsed.set(key, parseLoopbackTarget(key, value));
    }
    this.targets = parsed;
  }

  resolve({ namespace, service, port }: ServiceTarget): ResolvedTarget {
    const key = `${service}:${port}`;
    const found = this.targets.get(`${namespace}/${key}`) ?? this.targets.get(key);
    if (!found) {
      throw new TargetResolutionError(
        `no static target configured for Service ${namespace}/${service} port ${port} (add "${key}" to the static target map)`,
      );
    }
    return { ...found };
  }
}

export type TargetResolverConfig =
  { mode: 'cluster-dns'; dnsSuffix?: string } | { mode: 'static'; targets: Readonly<Record<string, string>> };

/** Builds the resolver the server config asks for (server/config.ts owns reading the settings). */
export function createTargetResolver(config: TargetResolverConfig): TargetResolver {
  return config.mode === 'static'
    ? new StaticTargetResolver(config.targets)
    : new ClusterDnsTargetResolver(config.dnsSuffix === undefined ? {} : { dnsSuffix: config.dnsSuffix });
}

/** "host:port" for messages and URLs (brackets around IPv6 literals). */
export function formatHostPort({ host, port }: ResolvedTarget): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
