// Rendering the install manifests for tests: the Helm chart (Helm built from its Go module, cached),
// the kustomize base and overlays (kubectl kustomize), parsed into objects keyed by kind/namespace/name.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { repoRoot } from './cluster-info.js';

export const chartDir = path.join(repoRoot, 'deploy/helm/rehearsal');

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [field: string]: unknown;
}

let helmPath: string | undefined;
/** The cached Helm binary (deploy/tools/build-go-tools.sh builds it once per version). */
export function helmBinary(): string {
  helmPath ??= execFileSync('bash', [path.join(repoRoot, 'deploy/tools/build-go-tools.sh'), 'helm'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  return helmPath;
}

export function helm(args: string[]): string {
  return execFileSync(helmBinary(), args, {
    cwd: repoRoot,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export function parseObjects(text: string): K8sObject[] {
  return parseAllDocuments(text)
    .map((doc) => doc.toJS() as K8sObject | null)
    .filter(
      (object): object is K8sObject => object !== null && typeof object === 'object' && 'kind' in object,
    );
}

/** `helm template` of the chart in namespace rehearsal-system, CRDs included. */
export function renderChart(valuesFiles: string[] = [], extraArgs: string[] = []): K8sObject[] {
  const values = valuesFiles.flatMap((file) => ['--values', file]);
  return parseObjects(
    helm([
      'template',
      'rehearsal',
      chartDir,
      '--namespace',
      'rehearsal-system',
      '--include-crds',
      ...values,
      ...extraArgs,
    ]),
  );
}

export function renderKustomize(dir: string): K8sObject[] {
  return parseObjects(execFileSync('kubectl', ['kustomize', path.join(repoRoot, dir)], { encoding: 'utf8' }));
}

export const keyOf = (object: K8sObject): string =>
  `${object.kind}/${object.metadata.namespace ?? ''}/${object.metadata.name}`;

const CHART_LABELS = [
  'helm.sh/chart',
  'app.kubernetes.io/managed-by',
  'app.kubernetes.io/instance',
  'app.kubernetes.io/version',
];

/** The object without what only Helm adds (its bookkeeping labels), for comparing with kustomize's. */
export function withoutChartLabels(object: K8sObject): K8sObject {
  const copy = structuredClone(object);
  const labels = copy.metadata.labels;
  if (labels) {
    for (const label of CHART_LABELS) delete labels[label];
    if (Object.keys(labels).length === 0) delete copy.metadata.labels;
  }
  return copy;
}
