// What a draft is written from: the workloads and Services of one source namespace, reduced to
// the fields the drafting reads (server/inventory/workloads.kube.ts fills them from the cluster).
// Our own shapes, not the Kubernetes client's, so the drafting is table-testable.

export type WorkloadKind = 'Deployment' | 'StatefulSet' | 'DaemonSet';

/** An httpGet probe of a container (readiness or liveness). */
export interface HttpProbeFacts {
  probe: 'readiness' | 'liveness';
  /** As written in the probe; absent = "/". */
  path?: string;
  /** A container port number or the name of one. */
  port: number | string;
  scheme?: 'HTTP' | 'HTTPS';
}

/** An environment variable: its literal value, or the Secret key it comes from. */
export interface EnvFacts {
  name: string;
  value?: string;
  secretKeyRef?: { name: string; key: string };
}

export interface ContainerFacts {
  name: string;
  image: string;
  ports: { name?: string; containerPort: number }[];
  httpProbes: HttpProbeFacts[];
  env: EnvFacts[];
  /** Secrets whose every key becomes a variable (envFrom.secretRef). */
  envFromSecrets: string[];
}

export interface WorkloadFacts {
  kind: WorkloadKind;
  name: string;
  /** Desired replicas (Deployment, StatefulSet); absent for a DaemonSet. */
  replicas?: number;
  /** spec.selector.matchLabels (expressions are not carried; podLabels stand in then). */
  selector: Record<string, string>;
  /** The pod template's labels. */
  podLabels: Record<string, string>;
  containers: ContainerFacts[];
}

export interface ServicePortFacts {
  name?: string;
  port: number;
  /** A number, a container port name, or absent (= port). */
  targetPort?: number | string;
  /** TCP when absent. */
  protocol?: string;
}

export interface ServiceFacts {
  name: string;
  type?: string;
  /** Absent or empty: a Service without a selector (its endpoints are not the workloads'). */
  selector?: Record<string, string>;
  ports: ServicePortFacts[];
}

export interface NamespaceFacts {
  namespace: string;
  workloads: WorkloadFacts[];
  services: ServiceFacts[];
}
