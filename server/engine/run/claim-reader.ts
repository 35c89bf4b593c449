// The engine's read of a run's restored PersistentVolumeClaims (issue 27): each claim with the
// latest event that says why it is not bound, for the VolumeNotBound rule
// (domain/run/claim-binding.ts). Reads only, in sandboxes only, through the per-sandbox reader
// RoleBinding (rehearsal-sandbox-reader may list every kind there). The checks never look at
// claims, so this is not part of their SandboxReader.
import type { CoreV1Api, CoreV1Event } from '@kubernetes/client-node';
import type { ClaimObservation } from '../../domain/run/run-observations.js';
import { kubeCall } from '../../kube/errors.js';

const PAGE_SIZE = 500;

type ClaimWarning = NonNullable<ClaimObservation['lastWarning']>;

/** Lists the claims of one namespace with their latest warning; throws KubeError. */
export interface ClaimReader {
  listClaims(namespace: string): Promise<ClaimObservation[]>;
}

function iso(value: Date | string | undefined): string | undefined {
  if (!value) return undefined;
  return value instanceof Date ? value.toISOString() : String(value);
}

function eventTime(event: CoreV1Event): string | undefined {
  return iso(event.lastTimestamp ?? event.series?.lastObservedTime ?? event.eventTime ?? event.metadata?.creationTimestamp);
}

/**
 * Each claim's latest warning among the events of a namespace's claims, keyed by the claim's uid
 * (a claim deleted and created again under its name starts afresh). FailedBinding counts whatever
 * its type: the PV controller writes "no persistent volumes available for this claim and no
 * storage class is set" as Normal (pv_controller.go, syncUnboundClaim).
 */
function latestWarnings(events: readonly CoreV1Event[]): Map<string, ClaimWarning> {
  const latest = new Map<string, ClaimWarning>();
  for (const event of events) {
    const uid = event.involvedObject?.uid;
    const at = eventTime(event);
    if (!uid || !at || (event.type !== 'Warning' && event.reason !== 'FailedBinding')) continue;
    const seen = latest.get(uid);
    if (seen && Date.parse(seen.at) >= Date.parse(at)) continue;
    latest.set(uid, { reason: event.reason ?? '', message: event.message ?? '', at });
  }
  return latest;
}

export class KubeClaimReader implements ClaimReader {
  constructor(private readonly core: Pick<CoreV1Api, 'listNamespacedPersistentVolumeClaim' | 'listNamespacedEvent'>) {}

  /** The claims' events are read only when a claim is Pending (the common case reads one list). */
  async listClaims(namespace: string): Promise<ClaimObservation[]> {
    const claims: { claim: ClaimObservation; uid: string | undefined }[] = [];
    let token: string | undefined;
    do {
      const page = await kubeCall(() =>
        this.core.listNamespacedPersistentVolumeClaim({ namespace, limit: PAGE_SIZE, ...(token ? { _continue: token } : {}) }),
      );
      for (const item of page.items) {
        claims.push({
          claim: {
            namespace,
            name: item.metadata?.name ?? '',
            phase: item.status?.phase ?? 'Pending',
            createdAt: iso(item.metadata?.creationTimestamp) ?? '',
          },
          uid: item.metadata?.uid,
        });
      }
      token = page.metadata?._continue || undefined;
    } while (token);
    if (!claims.some(({ claim }) => claim.phase === 'Pending')) return claims.map(({ claim }) => claim);
    const events: CoreV1Event[] = [];
    do {
      const page = await kubeCall(() =>
        this.core.listNamespacedEvent({
          namespace,
          fieldSelector: 'involvedObject.kind=PersistentVolumeClaim',
          limit: PAGE_SIZE,
          ...(token ? { _continue: token } : {}),
        }),
      );
      events.push(...page.items);
      token = page.metadata?._continue || undefined;
    } while (token);
    const warnings = latestWarnings(events);
    return claims.map(({ claim, uid }) => {
      const warning = claim.phase === 'Pending' && uid ? warnings.get(uid) : undefined;
      return warning ? { ...claim, lastWarning: warning } : claim;
    });
  }
}
