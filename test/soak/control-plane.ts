// The soak's own test control plane (test/cluster/up.sh, without a real node) and the faults that
// hit it: the apiserver stopped and resumed (SIGSTOP/SIGCONT: connections hang, nothing is
// refused), and the apiserver crashed and started again on its port (restart-component.sh). Its
// own, never the integration run's: the soak kills apiservers.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { repoRoot, type TestClusterInfo } from '../helpers/cluster-info.js';
import { sleep, testKubeConfig } from '../helpers/kube.js';

const run = promisify(execFile);
const clusterScripts = path.join(repoRoot, 'test/cluster');

export class SoakControlPlane {
  readonly kubeconfigPath: string;
  readonly admin: KubeConfig;
  /** The file test/helpers/cluster-info.ts reads (REHEARSAL_TEST_CLUSTER_FILE) for this cluster. */
  readonly clusterFile: string;
  private paused = false;

  private constructor(readonly dir: string) {
    this.kubeconfigPath = path.join(dir, 'kubeconfig');
    this.clusterFile = path.join(dir, 'cluster.json');
    this.admin = testKubeConfig(this.kubeconfigPath);
  }

  /** Starts etcd, kube-apiserver, controller-manager, scheduler and KWOK (about 20–40 s here). */
  static start(dir: string): SoakControlPlane {
    mkdirSync(dir, { recursive: true });
    execFileSync('bash', [path.join(clusterScripts, 'up.sh'), dir], { stdio: ['ignore', 'ignore', 'inherit'] });
    const plane = new SoakControlPlane(path.resolve(dir));
    const info: TestClusterInfo = {
      source: 'local-binaries',
      kubeconfigPath: plane.kubeconfigPath,
      workDir: plane.dir,
      auditLogPath: path.join(plane.dir, 'audit.log'),
    };
    writeFileSync(plane.clusterFile, JSON.stringify(info));
    plane.installTestObjects();
    return plane;
  }

  /** Stops what up.sh started there (a paused apiserver is resumed first so it can exit cleanly). */
  static stop(dir: string): void {
    const pidFile = path.join(dir, 'pids/kube-apiserver.pid');
    if (existsSync(pidFile)) signal(Number(readFileSync(pidFile, 'utf8').trim()), 'SIGCONT');
    execFileSync('bash', [path.join(clusterScripts, 'down.sh'), dir], { stdio: 'inherit' });
  }

  /**
   * What the integration global setup installs (global-setup.js, which Jest loads untransformed and
   * which does not export it): Rehearsal's and Velero's CRDs, the installation's namespace,
   * admission policies and user roles. Kasten and Trilio are not needed here.
   */
  private installTestObjects(): void {
    const kubectl = (args: string[]): void => {
      execFileSync('kubectl', ['--kubeconfig', this.kubeconfigPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    };
    kubectl(['apply', '--server-side', '--force-conflicts', '-k', path.join(repoRoot, 'crds')]);
    kubectl(['apply', '--server-side', '--force-conflicts', '-f', path.join(repoRoot, 'test/fixtures/velero/crds')]);
    kubectl(['wait', '--for=condition=Established', '--timeout=60s', 'crd', '--all']);
    const base = path.join(repoRoot, 'deploy/base');
    const files = ['namespace.yaml', 'admission-params.yaml', 'restoretest-admission.yaml', 'server-admission.yaml', 'sandbox-label-admission.yaml', 'user-roles.yaml'];
    kubectl(['apply', ...files.flatMap((file) => ['-f', path.join(base, file)])]);
  }

  apiserverPid(): number {
    return Number(readFileSync(path.join(this.dir, 'pids/kube-apiserver.pid'), 'utf8').trim());
  }

  get isPaused(): boolean {
    return this.paused;
  }

  /** SIGSTOP: the apiserver keeps its sockets, so clients hang instead of being refused. */
  pauseApiserver(): void {
    signal(this.apiserverPid(), 'SIGSTOP');
    this.paused = true;
  }

  async resumeApiserver(): Promise<void> {
    signal(this.apiserverPid(), 'SIGCONT');
    this.paused = false;
    await this.waitReady();
  }

  /** SIGKILL, then the same command line again; resolves once /readyz answers. */
  async restartApiserver(): Promise<void> {
    this.paused = false;
    await run('bash', [path.join(clusterScripts, 'restart-component.sh'), this.dir, 'kube-apiserver'], { timeout: 180_000 });
    await this.waitReady();
  }

  /** Until a read through the apiserver answers (at most 3 minutes). */
  async waitReady(): Promise<void> {
    const core = this.admin.makeApiClient(CoreV1Api);
    const deadline = Date.now() + 180_000;
    for (;;) {
      try {
        await core.listNamespace({ limit: 1 });
        return;
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`the apiserver did not answer again within 3 minutes: ${(error as Error).message}`);
        await sleep(500);
      }
    }
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}
