// The Pod Security profile of each sandbox (domain/run/pod-security.ts): decided from the source
// namespaces' labels before the sandboxes exist (their labels are set when they are created, so
// the apiserver judges every restored Pod), and read back from the sandboxes for the report, so
// the report says what was enforced, not what was meant. Reads namespaces only.
import type { CoreV1Api } from '@kubernetes/client-node';
import type { CurrentRun, PodSecurityLevel, PodSecurityReport, RestoreTest } from '../../domain/resources/resources.js';
import { enforcedLevel, podSecurityFloor, sandboxLevel } from '../../domain/run/pod-security.js';
import { isKind, kubeCall } from '../../kube/errors.js';

export interface PlannedPodSecurity {
  source: string;
  sandbox: string;
  sourceLevel?: PodSecurityLevel;
  level: PodSecurityLevel;
}

export class PodSecurityPlanner {
  constructor(
    private readonly core: Pick<CoreV1Api, 'readNamespace'>,
    /** The installation's floor (REHEARSAL_POD_SECURITY_FLOOR). */
    private readonly installationFloor: PodSecurityLevel,
  ) {}

  floor(test: RestoreTest): PodSecurityLevel {
    return podSecurityFloor(test.spec.restore?.podSecurity, this.installationFloor);
  }

  /** The level of each sandbox: the stricter of its source's and the floor. */
  async plan(test: RestoreTest, entries: readonly { source: string; sandbox: string }[]): Promise<PlannedPodSecurity[]> {
    const floor = this.floor(test);
    return Promise.all(
      entries.map(async ({ source, sandbox }) => {
        const sourceLevel = await this.levelOf(source);
        return { source, sandbox, ...(sourceLevel ? { sourceLevel } : {}), level: sandboxLevel(sourceLevel, floor) };
      }),
    );
  }

  /**
   * What the run's sandboxes enforce now (their labels), for the report; undefined without
   * sandboxes, or when the namespaces cannot be read (the report then leaves it out).
   */
  async observe(test: RestoreTest, run: CurrentRun): Promise<PodSecurityReport | undefined> {
    const entries = run.sandboxNamespaces ?? [];
    if (entries.length === 0) return undefined;
    try {
      return await this.read(test, entries);
    } catch {
      return undefined;
    }
  }

  private async read(test: RestoreTest, entries: readonly { source: string; sandbox: string }[]): Promise<PodSecurityReport> {
    const floor = this.floor(test);
    const namespaces = await Promise.all(
      entries.map(async ({ source, sandbox }) => {
        const [sourceLevel, level] = await Promise.all([this.levelOf(source), this.levelOf(sandbox)]);
        // A sandbox already gone (deleted by hand) enforced what it was created with.
        return { source, ...(sourceLevel ? { sourceLevel } : {}), level: level ?? sandboxLevel(sourceLevel, floor) };
      }),
    );
    return { floor, namespaces };
  }

  /** A namespace's enforce level; undefined when unlabelled or absent (a backup of a deleted namespace). */
  private async levelOf(namespace: string): Promise<PodSecurityLevel | undefined> {
    try {
      const object = await kubeCall(() => this.core.readNamespace({ name: namespace }));
      return enforcedLevel(object.metadata?.labels);
    } catch (error) {
      if (isKind(error, 'NotFound')) return undefined;
      throw error;
    }
  }
}
