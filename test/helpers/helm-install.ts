// Rehearsal installed the way a user installs it (docs/install.md), for the tests on the real node:
// the server image from deploy/image/build-oci.sh loaded into the node (no registry here), `helm
// install` of deploy/helm/rehearsal, and the aggregated API's serving certificate from
// deploy/tls/make-serving-cert.sh.
//
// The integration files share one control plane, and its global setup applied parts of
// deploy/base without Helm (namespace, admission parameters and policies, user roles); other
// files apply rbac.yaml and register their own APIService. The install adopts those objects
// (`--take-ownership`, as Helm does for objects a user created before), and the uninstall puts
// back what global setup applied, so the files after this one find the cluster as they expect.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, statSync } from 'node:fs';
import path from 'node:path';
import { unregisterAggregatedApi } from './aggregated-api.js';
import { repoRoot } from './cluster-info.js';
import { kubectl } from './install-crds.js';
import { chartDir, helm } from './manifests.js';
import { REHEARSAL_NAMESPACE } from './rehearsal-identity.js';

export const RELEASE = 'rehearsal';

/** What global-setup.js installPolicies() applies from deploy/base, in the same order. */
const GLOBAL_SETUP_FILES = [
  'namespace.yaml',
  'admission-params.yaml',
  'restoretest-admission.yaml',
  'server-admission.yaml',
  'sandbox-label-admission.yaml',
  'user-roles.yaml',
];

export interface BuiltImage {
  archive: string;
  bytes: number;
  seconds: number;
}

/** The server image as a user builds it without a container engine (cached by its inputs). */
export function buildServerImage(output: string): BuiltImage {
  const started = performance.now();
  const archive = execFileSync('bash', [path.join(repoRoot, 'deploy/image/build-oci.sh'), output], {
    cwd: repoRoot,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  return { archive, bytes: statSync(archive).size, seconds: (performance.now() - started) / 1000 };
}

/** A chart in an OCI registry, as users install it: `oci://host/path/rehearsal --version V`. */
export interface RegistryChart {
  reference: string;
  version: string;
  /** A registry without TLS (127.0.0.1 in the tests): Helm's --plain-http. */
  plainHttp: boolean;
}

/** Helm's arguments naming the chart: the working tree's directory, or a registry's chart. */
export function chartArgs(chart?: RegistryChart): string[] {
  if (!chart) return [chartDir];
  return [chart.reference, '--version', chart.version, ...(chart.plainHttp ? ['--plain-http'] : [])];
}

/**
 * `helm install` into rehearsal-system with `--set`/`--set-json` style arguments, of the working
 * tree's chart or of `options.chart` from a registry. Clears what another file may have left in the
 * chart's way first: an APIService and an ExternalName Service rehearsal-api pointing at a server
 * on the host (test/helpers/aggregated-api.ts).
 */
export function installChart(adminPath: string, valueArgs: string[], options: { upgrade?: boolean; chart?: RegistryChart } = {}): void {
  unregisterAggregatedApi(adminPath);
  // rbac.yaml binds Rehearsal's Velero role in the installation's backup namespace: Velero is
  // installed first (docs/install.md).
  kubectl(adminPath, ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'velero' } }));
  helm([
    // upgrade --install: a release left by an earlier demo run is upgraded in place.
    ...(options.upgrade ? ['upgrade', '--install'] : ['install']),
    RELEASE,
    ...chartArgs(options.chart),
    '--kubeconfig',
    adminPath,
    '--namespace',
    REHEARSAL_NAMESPACE,
    '--take-ownership',
    ...valueArgs,
  ]);
}

/**
 * The chart's CRDs from the registry, to apply before an upgrade: `helm pull --untar`, then its
 * crds/ directory. Not `helm show crds`: it joins the files without a `---` between them, so the
 * three CRDs come out as one YAML document (Helm 3.22; our CRD files start with comments).
 */
export function pulledCrdsDir(chart: RegistryChart, into: string): string {
  mkdirSync(into, { recursive: true });
  helm(['pull', ...chartArgs(chart), '--untar', '--untardir', into]);
  return path.join(into, 'rehearsal', 'crds');
}

/**
 * An upgrade of the installed release to `chart`, as docs/install.md says: the chart's CRDs first
 * (Helm installs crds/ on install only and never upgrades them), then `helm upgrade
 * --reset-then-reuse-values` (the install's values over the NEW chart's defaults; plain
 * --reuse-values would take the old chart's defaults and leave the values the new chart added
 * empty), waiting for the rollout.
 */
export function upgradeChart(adminPath: string, chart: RegistryChart, workDir: string): void {
  const crds = pulledCrdsDir(chart, mkdtempSync(path.join(workDir, 'pulled-')));
  kubectl(adminPath, ['apply', '--server-side', '--force-conflicts', '-f', crds]);
  helm([
    'upgrade',
    RELEASE,
    ...chartArgs(chart),
    '--kubeconfig',
    adminPath,
    '--namespace',
    REHEARSAL_NAMESPACE,
    // Objects the new chart adds may exist already: global setup applies parts of deploy/base.
    '--take-ownership',
    '--reset-then-reuse-values',
  ]);
  kubectl(adminPath, ['rollout', 'status', 'deployment/rehearsal-api', '-n', REHEARSAL_NAMESPACE, '--timeout=180s']);
}

/** The release's chart (name-version) and revision, from `helm list`. */
export function releaseChart(adminPath: string): { chart: string; revision: number } {
  const [release] = JSON.parse(
    helm(['list', '--kubeconfig', adminPath, '--namespace', REHEARSAL_NAMESPACE, '--filter', `^${RELEASE}$`, '-o', 'json']),
  ) as { chart: string; revision: string }[];
  if (!release) throw new Error(`no Helm release ${RELEASE} in ${REHEARSAL_NAMESPACE}`);
  return { chart: release.chart, revision: Number(release.revision) };
}

/** The serving certificate and the APIService caBundle, by the script docs/install.md names. */
export function makeServingCertificate(adminPath: string): void {
  execFileSync('bash', [path.join(repoRoot, 'deploy/tls/make-serving-cert.sh'), REHEARSAL_NAMESPACE, '1'], {
    env: { ...process.env, KUBECONFIG: adminPath },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * A policy that keeps kube-apiserver's informer of ConfigMaps as policy parameters alive while the
 * uninstall deletes the installation's policies. The apiserver stops that informer when the last
 * policy with paramKind ConfigMap goes and does not start it again for one created later: the
 * re-applied rehearsal-restoretest-author then refuses every RestoreTest with "no params found for
 * policy binding" for the rest of the run (seen on this control plane; one policy on the same
 * paramKind held across the delete avoids it). It matches nothing and allows everything.
 */
const PARAM_INFORMER_ANCHOR = JSON.stringify({
  apiVersion: 'v1',
  kind: 'List',
  items: [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'test-param-informer-anchor' },
      spec: {
        failurePolicy: 'Ignore',
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        matchConstraints: { resourceRules: [{ apiGroups: ['rehearsal.dev'], apiVersions: ['*'], operations: ['DELETE'], resources: ['no-such-resource'] }] },
        validations: [{ expression: 'true' }],
      },
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: 'test-param-informer-anchor' },
      spec: {
        policyName: 'test-param-informer-anchor',
        validationActions: ['Deny'],
        paramRef: { name: 'rehearsal-admission', namespace: REHEARSAL_NAMESPACE, parameterNotFoundAction: 'Allow' },
      },
    },
  ],
});

/** A RestoreTest the re-applied admission policies must admit (server-side dry run). */
const ADMISSION_PROBE = JSON.stringify({
  apiVersion: 'rehearsal.dev/v1alpha1',
  kind: 'RestoreTest',
  metadata: { name: 'admission-probe', namespace: REHEARSAL_NAMESPACE },
  spec: {
    provider: 'velero',
    backupSource: { backupName: 'probe', namespaces: [{ name: REHEARSAL_NAMESPACE }] },
    schedule: { cron: '0 0 1 1 *', timezone: 'UTC' },
  },
});

/**
 * `helm uninstall` (waiting for the pods to go, so their Lease is released and nothing of this
 * install acts on the next file's objects), then global setup's objects back in place, checked by
 * a RestoreTest the admission policies must admit again.
 */
export function uninstallChart(adminPath: string): void {
  kubectl(adminPath, ['apply', '-f', '-'], PARAM_INFORMER_ANCHOR);
  try {
    helm(['uninstall', RELEASE, '--kubeconfig', adminPath, '--namespace', REHEARSAL_NAMESPACE, '--wait', '--timeout', '120s', '--ignore-not-found']);
  } finally {
    kubectl(adminPath, ['apply', ...GLOBAL_SETUP_FILES.flatMap((file) => ['-f', path.join(repoRoot, 'deploy/base', file)])]);
    kubectl(adminPath, ['delete', 'secret', 'rehearsal-api-tls', '-n', REHEARSAL_NAMESPACE, '--ignore-not-found']);
    try {
      waitUntilAdmitted(adminPath);
    } finally {
      kubectl(adminPath, ['delete', '-f', '-', '--ignore-not-found'], PARAM_INFORMER_ANCHOR);
    }
  }
}

/** Polls the dry-run create for up to 30 s; throws with the apiserver's last answer. */
function waitUntilAdmitted(adminPath: string): void {
  let last = '';
  for (let attempt = 0; attempt < 30; attempt += 1) {
    try {
      kubectl(adminPath, ['create', '--dry-run=server', '-f', '-'], ADMISSION_PROBE);
      return;
    } catch (error) {
      last = String((error as { stderr?: unknown }).stderr ?? (error as Error).message);
      execFileSync('sleep', ['1']);
    }
  }
  throw new Error(`after the uninstall the admission policies still refuse a RestoreTest the cluster administrator may create: ${last}`);
}
