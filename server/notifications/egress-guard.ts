// Where a notification may go (issue 26). A channel's URL is written by whoever writes the
// RestoreTest (a tenant): without a guard the leader POSTs from inside the cluster network to any
// address they name — the cloud metadata service (169.254.169.254), the apiserver, a pod or a
// Service no one outside may reach — and the recorded outcome ("connection refused" against
// "timeout") made it a port scanner.
//
// The rule: every address the URL's host resolves to must be allowed, and the request connects to
// exactly the address that was checked (the resolver's answer is handed to the socket, so a second
// DNS answer cannot differ from the first: no rebinding gap). Refused unless an administrator
// allows them (REHEARSAL_NOTIFICATION_ALLOWED_CIDRS): loopback, link-local, unspecified,
// multicast and reserved addresses, the cluster's pod and Service ranges
// (REHEARSAL_NOTIFICATION_CLUSTER_CIDRS; by default every private range, which is where
// Kubernetes distributions put them) and the apiserver's own addresses.
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((entry) => ({
    address: entry.address,
    family: entry.family === 6 ? 6 : 4,
  }));

/** Never a notification's destination unless allowed: not the internet. */
const ALWAYS_REFUSED = [
  '0.0.0.0/8', // "this network"; 0.0.0.0 reaches the local host
  '127.0.0.0/8', // loopback
  '169.254.0.0/16', // link-local: cloud metadata services live here
  '192.0.0.0/24', // IETF protocol assignments
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, and the broadcast address
  '::/128',
  '::1/128',
  'fe80::/10', // link-local
  'ff00::/8', // multicast
  '64:ff9b:1::/48', // local-use NAT64
];

/** Where Kubernetes distributions put pod and Service addresses: the private ranges. */
export const DEFAULT_CLUSTER_CIDRS = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', 'fc00::/7'];

export interface EgressPolicySettings {
  /** CIDRs an administrator allows even though a rule below refuses them. */
  allowedCidrs: readonly string[];
  /** The cluster's pod and Service ranges. */
  clusterCidrs: readonly string[];
  /** Host names or addresses of the apiserver (the kubeconfig's server, the in-cluster Service). */
  apiServerHosts: readonly string[];
}

export class EgressRefusedError extends Error {
  constructor(
    message: string,
    /** An outcome class for the delivery record (never the address: the record is tenant-readable). */
    readonly outcome: 'refused-address' | 'dns-failed' | 'bad-url',
  ) {
    super(message);
    this.name = 'EgressRefusedError';
  }
}

function addCidrs(list: BlockList, cidrs: readonly string[]): void {
  for (const cidr of cidrs) {
    const [address, prefix] = cidr.split('/');
    const family = isIP(address ?? '');
    if (!address || family === 0 || prefix === undefined) throw new Error(`"${cidr}" is not a CIDR`);
    list.addSubnet(address, Number(prefix), family === 6 ? 'ipv6' : 'ipv4');
  }
}

/** Throws when a CIDR of the list is malformed (config.ts validates with it). */
export function checkCidrs(cidrs: readonly string[]): void {
  addCidrs(new BlockList(), cidrs);
}

/** "::ffff:127.0.0.1" (IPv4-mapped, also in hex form) as the IPv4 address it is. */
function unmapped(address: string): ResolvedAddress {
  if (isIP(address) !== 6) return { address, family: 4 };
  const match = /^::ffff:(?:0:)?(.+)$/i.exec(address);
  if (match) {
    const tail = match[1]!;
    if (isIP(tail) === 4) return { address: tail, family: 4 };
    const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(tail);
    if (hex) {
      const high = parseInt(hex[1]!, 16);
      const low = parseInt(hex[2]!, 16);
      return { address: `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`, family: 4 };
    }
  }
  return { address, family: 6 };
}

export class EgressGuard {
  private readonly allowed = new BlockList();
  private readonly refused = new BlockList();

  constructor(
    private readonly settings: EgressPolicySettings,
    private readonly resolve: Resolver = systemResolver,
  ) {
    addCidrs(this.allowed, settings.allowedCidrs);
    addCidrs(this.refused, [...ALWAYS_REFUSED, ...settings.clusterCidrs]);
  }

  /**
   * The addresses `hostname` resolves to, every one checked; EgressRefusedError when one of them
   * is refused (a name that resolves to an internal address among public ones is not trusted
   * either) or the name does not resolve.
   */
  async addressesOf(hostname: string): Promise<ResolvedAddress[]> {
    const host = hostname.replace(/^\[(.*)\]$/, '$1');
    let addresses: ResolvedAddress[];
    if (isIP(host) !== 0) addresses = [{ address: host, family: isIP(host) === 6 ? 6 : 4 }];
    else {
      try {
        addresses = await this.resolve(host);
      } catch {
        throw new EgressRefusedError(`the host name of the URL does not resolve`, 'dns-failed');
      }
      if (addresses.length === 0) throw new EgressRefusedError('the host name of the URL does not resolve', 'dns-failed');
    }
    const apiServer = await this.apiServerAddresses();
    for (const candidate of addresses) {
      const { address, family } = unmapped(candidate.address);
      const type = family === 6 ? 'ipv6' : 'ipv4';
      if (this.allowed.check(address, type)) continue;
      if (this.refused.check(address, type) || apiServer.has(address)) {
        throw new EgressRefusedError(
          'the URL points to an internal address (loopback, link-local, the cluster or the apiserver); an administrator can allow it with REHEARSAL_NOTIFICATION_ALLOWED_CIDRS',
          'refused-address',
        );
      }
    }
    return addresses;
  }

  private async apiServerAddresses(): Promise<Set<string>> {
    const found = new Set<string>();
    for (const host of this.settings.apiServerHosts) {
      const bare = host.replace(/^\[(.*)\]$/, '$1');
      if (isIP(bare) !== 0) found.add(unmapped(bare).address);
      else {
        for (const entry of await this.resolve(bare).catch(() => [])) found.add(unmapped(entry.address).address);
      }
    }
    return found;
  }
}
