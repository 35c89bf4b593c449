// The default restore transforms (issue 28): what a backup must lose on its way into a sandbox so
// that the restored copy cannot act on the world — run a CronJob or Job again, ask the cloud for
// a load balancer, claim production's host names or DNS records, request certificates, deploy
// through GitOps, or widen the sandbox's network isolation with the source's NetworkPolicies.
//
// One list, in one place: each entry says what it does, why, and how each backup tool does it.
// The providers translate the entries (server/providers/*/…-transforms.ts) with a record keyed by
// the id, so a new entry does not compile until every tool has its translation; docs/
// restore-transforms.md is the list for readers (a unit test keeps the two in step). What a run's
// transforms changed is reported by transforms-report.ts.
//
// A test may add transforms (spec.restore.exclude, spec.restore.patches) and, with the administer
// verb, remove defaults (spec.restore.removeDefaults). Its patches run before the defaults, so a
// patch cannot undo one; a patch on a kind a default changes (or on RBAC objects) still needs
// administer, because a patch can change what a default's condition sees. Pure.
import type {
  DefaultTransformId,
  Provider,
  RestorePatch,
  RestoreSpec,
  ResourceTypeRef,
} from '../resources/resources.js';

/** A resource type with every part spelled out ("" = the core group). */
export interface ResourceType {
  group: string;
  version: string;
  kind: string;
  resource: string;
}

export interface DefaultTransform {
  id: DefaultTransformId;
  /** What it does, one line. */
  what: string;
  /** Why a sandbox needs it. */
  why: string;
  /** How each tool does it (for readers; the code is in the provider's translation). */
  how: Readonly<Record<Provider, string>>;
  /** Resource types not restored at all. */
  excludes?: readonly ResourceType[];
  /** Resource types it changes. */
  changes?: readonly ResourceType[];
}

const type = (group: string, version: string, kind: string, resource: string): ResourceType => ({ group, version, kind, resource });

export const CRONJOB = type('batch', 'v1', 'CronJob', 'cronjobs');
export const JOB = type('batch', 'v1', 'Job', 'jobs');
export const POD = type('', 'v1', 'Pod', 'pods');
export const SERVICE = type('', 'v1', 'Service', 'services');
export const PERSISTENT_VOLUME_CLAIM = type('', 'v1', 'PersistentVolumeClaim', 'persistentvolumeclaims');

/** The annotation a tool that can (Velero) writes on each object a transform changed: `<prefix><transform>`. */
export const TRANSFORM_ANNOTATION_PREFIX = 'transforms.rehearsal.dev/';
/** The scheduling gate that holds a restored Pod of a Job: the Pod exists, never starts. */
export const JOB_HOLD_GATE = 'rehearsal.dev/job-not-rerun';
/** Labels the Job controller puts on its Pods (the second on clusters before 1.27 as well). */
export const JOB_POD_LABELS = ['batch.kubernetes.io/job-name', 'job-name'] as const;
/** Service types that claim something outside the cluster's network: made ClusterIP. */
export const EXPOSED_SERVICE_TYPES = ['LoadBalancer', 'NodePort'] as const;
/** Service fields that only make sense for an exposed Service, dropped with the type change. */
export const EXPOSED_SERVICE_FIELDS = [
  'externalIPs',
  'loadBalancerIP',
  'loadBalancerClass',
  'loadBalancerSourceRanges',
  'allocateLoadBalancerNodePorts',
  'externalTrafficPolicy',
  'healthCheckNodePort',
] as const;
/**
 * Ports whose nodePort is dropped by index (a JSON patch cannot say "every item"): explicitly set
 * node ports, which Velero keeps, would make the ClusterIP Service invalid. A Service with more
 * ports keeps the node ports of the rest, and the apiserver refuses it (it shows as not restored).
 */
export const MAX_NODE_PORT_INDEX = 8;
/**
 * What ties a restored claim to production's volume or node: the PersistentVolume it names, the
 * PV controller's binding annotations (with bind-completed left on a claim without a volume, the
 * controller would mark it Lost) and the node the scheduler picked for a WaitForFirstConsumer claim.
 */
export const CLAIM_BINDING_ANNOTATIONS = [
  'pv.kubernetes.io/bind-completed',
  'pv.kubernetes.io/bound-by-controller',
  'volume.kubernetes.io/selected-node',
] as const;
/** external-dns publishes records from these (and creates none without them). */
export const EXTERNAL_DNS_ANNOTATIONS = [
  'external-dns.alpha.kubernetes.io/hostname',
  'external-dns.alpha.kubernetes.io/internal-hostname',
  'external-dns.alpha.kubernetes.io/target',
  'external-dns.alpha.kubernetes.io/ttl',
  'external-dns.alpha.kubernetes.io/alias',
  'external-dns.alpha.kubernetes.io/controller',
  'external-dns.alpha.kubernetes.io/set-identifier',
  'external-dns.alpha.kubernetes.io/access',
  'external-dns.alpha.kubernetes.io/endpoints-type',
] as const;

export const DEFAULT_TRANSFORMS: readonly DefaultTransform[] = [
  {
    id: 'suspend-cronjobs',
    what: 'CronJobs are restored suspended (spec.suspend: true).',
    why: 'A restored CronJob runs on its schedule: the billing job charges customers again, the mailer mails them.',
    how: {
      velero: 'resource modifier: merge patch {"spec":{"suspend":true}} on cronjobs.batch',
      kasten: 'transform on cronjobs: add /spec/suspend true',
      trilio: 'transformComponents.custom on batch/v1 CronJob: add /spec/suspend true',
    },
    changes: [CRONJOB],
  },
  {
    id: 'hold-jobs',
    what: 'Jobs are not restored, and restored Pods of a Job never start (scheduling gate rehearsal.dev/job-not-rerun).',
    why: 'A restored Job runs again (its migration, its export); its Pods, restored without their owner, would run it too.',
    how: {
      velero: 'excludedResources jobs.batch; resource modifier: merge patch adding the scheduling gate on pods labelled batch.kubernetes.io/job-name or job-name',
      kasten: 'filters.excludeResources jobs; transform on pods: test the job-name label, add the scheduling gate',
      trilio: 'excludeResourceSelector: gvkSelector batch/v1 Job and labelSelector job-name Exists (the Pods are not restored)',
    },
    excludes: [JOB],
    changes: [POD],
  },
  {
    id: 'services-cluster-ip',
    what:
      'LoadBalancer and NodePort Services become ClusterIP; externalIPs, loadBalancerIP/Class/SourceRanges, ' +
      'allocateLoadBalancerNodePorts, externalTrafficPolicy, healthCheckNodePort and node ports are dropped.',
    why: 'A LoadBalancer Service asks the cloud for a new load balancer (and its cost); node ports and external IPs open the nodes.',
    how: {
      velero:
        'resource modifier: merge patch on services whose spec.type is LoadBalancer or NodePort; ' +
        `JSON patches dropping the node port of ports 0-${MAX_NODE_PORT_INDEX - 1}`,
      kasten: 'transforms on services: test spec.type, replace it with ClusterIP, remove the fields present',
      trilio: 'transformComponents.custom on v1 Service: test spec.type, replace it with ClusterIP, null the fields',
    },
    changes: [SERVICE],
  },
  {
    id: 'drop-external-dns-annotations',
    what: 'external-dns annotations (hostname, target, ttl, …) are removed from Services.',
    why: 'external-dns would publish the sandbox under production\'s DNS names.',
    how: {
      velero: 'resource modifier: merge patch nulling the annotations on services',
      kasten: 'transforms on services: test each annotation, remove it',
      trilio: 'not done: a JSON patch cannot remove an annotation that may be absent (the Services are ClusterIP, which external-dns does not publish by default)',
    },
    changes: [SERVICE],
  },
  {
    id: 'unbind-claims',
    what:
      'PersistentVolumeClaims lose spec.volumeName and their binding annotations (bind-completed, bound-by-controller, ' +
      'selected-node): each binds a new volume of its storage class.',
    why:
      'A PersistentVolume is cluster-scoped, so it is never restored, but the restored claim still names production\'s ' +
      'volume: bound to production\'s claim, the sandbox claim stays Pending and its pods never start; a Retained volume ' +
      'whose claim reference was cleared would be bound, production\'s data and all, by the sandbox.',
    how: {
      velero: 'resource modifier: merge patch nulling spec.volumeName and the annotations on persistentvolumeclaims',
      kasten: 'transforms on persistentvolumeclaims: test each field, remove it',
      trilio:
        'not done: a JSON patch cannot remove annotations that may be absent, and a claim that keeps bind-completed ' +
        'without its volume is marked Lost',
    },
    changes: [PERSISTENT_VOLUME_CLAIM],
  },
  {
    id: 'exclude-host-routes',
    what:
      'Objects that claim host names are not restored: Ingress, Gateway API Gateways and routes, OpenShift Routes, ' +
      'Istio Gateways and VirtualServices, Contour HTTPProxies, Traefik IngressRoutes.',
    why:
      'A copy would claim production\'s host names twice (the ingress controller may serve the sandbox, or reject both); ' +
      'Rehearsal\'s checks reach the restored Services directly, so nothing it checks needs them.',
    how: {
      velero: 'excludedResources',
      kasten: 'filters.excludeResources',
      trilio: 'excludeResourceSelector.gvkSelector',
    },
    excludes: [
      type('networking.k8s.io', 'v1', 'Ingress', 'ingresses'),
      type('gateway.networking.k8s.io', 'v1', 'Gateway', 'gateways'),
      type('gateway.networking.k8s.io', 'v1', 'HTTPRoute', 'httproutes'),
      type('gateway.networking.k8s.io', 'v1', 'GRPCRoute', 'grpcroutes'),
      type('gateway.networking.k8s.io', 'v1alpha2', 'TLSRoute', 'tlsroutes'),
      type('gateway.networking.k8s.io', 'v1alpha2', 'TCPRoute', 'tcproutes'),
      type('gateway.networking.k8s.io', 'v1alpha2', 'UDPRoute', 'udproutes'),
      type('route.openshift.io', 'v1', 'Route', 'routes'),
      type('networking.istio.io', 'v1', 'Gateway', 'gateways'),
      type('networking.istio.io', 'v1', 'VirtualService', 'virtualservices'),
      type('projectcontour.io', 'v1', 'HTTPProxy', 'httpproxies'),
      type('traefik.io', 'v1alpha1', 'IngressRoute', 'ingressroutes'),
      type('traefik.io', 'v1alpha1', 'IngressRouteTCP', 'ingressroutetcps'),
      type('traefik.io', 'v1alpha1', 'IngressRouteUDP', 'ingressrouteudps'),
    ],
  },
  {
    id: 'exclude-external-callers',
    what:
      'Objects whose controllers call outside services are not restored: cert-manager Certificates, CertificateRequests, ' +
      'Issuers, Orders and Challenges; external-dns DNSEndpoints; External Secrets ExternalSecrets, SecretStores and PushSecrets.',
    why:
      'A copy would request certificates from a public CA (and its rate limits), publish DNS records, ' +
      'read production secrets from a vault or push the sandbox\'s into it.',
    how: {
      velero: 'excludedResources (ClusterIssuers are cluster-scoped: never restored)',
      kasten: 'filters.excludeResources',
      trilio: 'excludeResourceSelector.gvkSelector',
    },
    excludes: [
      type('cert-manager.io', 'v1', 'Certificate', 'certificates'),
      type('cert-manager.io', 'v1', 'CertificateRequest', 'certificaterequests'),
      type('cert-manager.io', 'v1', 'Issuer', 'issuers'),
      type('acme.cert-manager.io', 'v1', 'Order', 'orders'),
      type('acme.cert-manager.io', 'v1', 'Challenge', 'challenges'),
      type('externaldns.k8s.io', 'v1alpha1', 'DNSEndpoint', 'dnsendpoints'),
      type('external-secrets.io', 'v1', 'ExternalSecret', 'externalsecrets'),
      type('external-secrets.io', 'v1', 'SecretStore', 'secretstores'),
      type('external-secrets.io', 'v1alpha1', 'PushSecret', 'pushsecrets'),
    ],
  },
  {
    id: 'exclude-gitops',
    what: 'GitOps objects are not restored: Argo CD Applications and ApplicationSets, Flux Kustomizations and HelmReleases.',
    why: 'Their controllers would deploy, with their own rights, into whatever namespace or cluster the copy names: production included.',
    how: {
      velero: 'excludedResources',
      kasten: 'filters.excludeResources',
      trilio: 'excludeResourceSelector.gvkSelector',
    },
    excludes: [
      type('argoproj.io', 'v1alpha1', 'Application', 'applications'),
      type('argoproj.io', 'v1alpha1', 'ApplicationSet', 'applicationsets'),
      type('kustomize.toolkit.fluxcd.io', 'v1', 'Kustomization', 'kustomizations'),
      type('helm.toolkit.fluxcd.io', 'v2', 'HelmRelease', 'helmreleases'),
    ],
  },
  {
    id: 'exclude-network-policies',
    what: 'The source\'s NetworkPolicies (Kubernetes, Cilium, Calico) are not restored.',
    why:
      'NetworkPolicies add up: a restored "allow all egress" would re-open the sandbox that networkIsolation: strict closes. ' +
      'Rehearsal writes the sandbox\'s own policies.',
    how: {
      velero: 'excludedResources',
      kasten: 'filters.excludeResources',
      trilio: 'excludeResourceSelector.gvkSelector',
    },
    excludes: [
      type('networking.k8s.io', 'v1', 'NetworkPolicy', 'networkpolicies'),
      type('cilium.io', 'v2', 'CiliumNetworkPolicy', 'ciliumnetworkpolicies'),
      type('crd.projectcalico.org', 'v1', 'NetworkPolicy', 'networkpolicies'),
    ],
  },
];

export const DEFAULT_TRANSFORM_IDS: readonly DefaultTransformId[] = DEFAULT_TRANSFORMS.map((entry) => entry.id);

/** What a run applies: the defaults the test keeps, and the test's own additions. */
export interface RestoreTransforms {
  defaults: readonly DefaultTransform[];
  removed: readonly DefaultTransformId[];
  exclude: readonly ResourceType[];
  patches: readonly RestorePatch[];
}

export function resourceType(ref: ResourceTypeRef): ResourceType {
  return { group: ref.group ?? '', version: ref.version, kind: ref.kind, resource: ref.resource };
}

export function apiVersionOf(entry: Pick<ResourceType, 'group' | 'version'>): string {
  return entry.group ? `${entry.group}/${entry.version}` : entry.version;
}

/** The transforms of a test's spec.restore (absent = every default, nothing added). */
export function resolveTransforms(spec: RestoreSpec | undefined): RestoreTransforms {
  const removed = DEFAULT_TRANSFORM_IDS.filter((id) => spec?.removeDefaults?.includes(id));
  return {
    defaults: DEFAULT_TRANSFORMS.filter((entry) => !removed.includes(entry.id)),
    removed,
    exclude: (spec?.exclude ?? []).map(resourceType),
    patches: spec?.patches ?? [],
  };
}

/** Every excluded type with the transform that excludes it (`exclude` for the test's own). */
function exclusions(transforms: RestoreTransforms): { transform: string; type: ResourceType }[] {
  const all = [
    ...transforms.defaults.flatMap((entry) => (entry.excludes ?? []).map((excluded) => ({ transform: entry.id as string, type: excluded }))),
    ...transforms.exclude.map((excluded) => ({ transform: 'exclude', type: excluded })),
  ];
  const seen = new Set<string>();
  return all.filter(({ type: excluded }) => {
    const key = `${excluded.group}/${excluded.resource}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The transform that keeps objects of this apiVersion and kind out of the sandbox, if any. */
export function exclusionOf(transforms: RestoreTransforms, apiVersion: string, kind: string): string | undefined {
  const group = apiVersion.includes('/') ? apiVersion.split('/')[0]! : '';
  return exclusions(transforms).find((entry) => entry.type.group === group && entry.type.kind === kind)?.transform;
}

const KINDS_DEFAULTS_CHANGE = new Set(DEFAULT_TRANSFORMS.flatMap((entry) => (entry.changes ?? []).map((changed) => `${changed.group}/${changed.kind}`)));
const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** Why a patch of the test needs the administer verb, or undefined when it does not. */
export function patchNeedsAdmin(patch: Pick<RestorePatch, 'name' | 'target'>): string | undefined {
  const group = patch.target.group ?? '';
  if (KINDS_DEFAULTS_CHANGE.has(`${group}/${patch.target.kind}`)) {
    return `patch "${patch.name}" changes ${patch.target.kind}s, which a default transform changes (it could undo it)`;
  }
  if (group === RBAC_GROUP) return `patch "${patch.name}" changes RBAC objects (it could grant access to the sandbox)`;
  return undefined;
}

/** `group/Kind` keys of the kinds a patch may change only with administer (the admission policy lists them). */
export function adminOnlyPatchKinds(): string[] {
  return [...KINDS_DEFAULTS_CHANGE].sort();
}
export const RBAC_PATCH_GROUP = RBAC_GROUP;

/** A JSON Pointer segment (RFC 6901): "~" → "~0", "/" → "~1". */
export function pointerSegment(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
