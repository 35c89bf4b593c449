// Keeps runs finishing continuously. The source is the shop (test/helpers/sample-app.ts) backed up
// once by the Velero simulator; its restored pods are KWOK pods (Ready within seconds) and the
// health checks reach the shop's real endpoints on loopback, so a healthy run takes seconds.
// Each test is driven one of three ways, so that every path that starts a run is under fault:
//   api        POST /api/v1/tests/{name}/trigger on a replica that is up, as soon as the test is idle;
//   annotation a new rehearsal.dev/trigger-request value (what the API writes), as soon as idle;
//   schedule   cron every minute (no trigger).
// More tests than run slots, so runs also queue for a slot.
import { CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import { ANNOTATION_TRIGGER, API_VERSION, GROUP, VERSION, type RestoreTest } from '../../server/domain/resources/resources.js';
import { authoredBy } from '../helpers/author.js';
import { createNamespace } from '../helpers/kube.js';
import { createShopApp, shopChecks, startShopEndpoints, type ShopEndpoints } from '../helpers/sample-app.js';
import { createBackup, VeleroSimulator } from '../velero/simulator.js';
import type { ClusterView, TestView } from './cluster-view.js';
import type { SeededRandom } from './prng.js';
import type { ReplicaSet } from './replicas.js';

export type DriveMode = 'api' | 'annotation' | 'schedule';

export interface SoakFixture {
  source: string;
  testNamespace: string;
  /** "velero": deploy/base/rbac.yaml binds Rehearsal's Velero role there already. */
  veleroNamespace: string;
  simulator: VeleroSimulator;
  endpoints: ShopEndpoints;
  backup: string;
  stop(): Promise<void>;
}

export async function createSoakFixture(admin: KubeConfig, log: (line: string) => void): Promise<SoakFixture> {
  const source = 'soak-shop';
  const testNamespace = 'soak-tests';
  const veleroNamespace = 'velero';
  await createShopApp(admin, source);
  await createNamespace(admin, testNamespace);
  const simulator = new VeleroSimulator(admin, { namespace: veleroNamespace, stepDelayMs: 150, pollIntervalMs: 100, log: (line) => log(`[velero-sim] ${line}`) });
  await simulator.start();
  const endpoints = await startShopEndpoints();
  const backup = 'shop-nightly';
  await createBackup(admin, { name: backup, namespaces: [source], veleroNamespace });
  return {
    source,
    testNamespace,
    veleroNamespace,
    simulator,
    endpoints,
    backup,
    async stop() {
      await simulator.stop();
      await endpoints.stop();
    },
  };
}

interface DrivenTest {
  name: string;
  mode: DriveMode;
  /** When the test was seen idle and may be triggered (a seeded 0–3 s later). */
  triggerAt?: number;
  /** The trigger sent last and when; no new one until it was acted on (or 30 s passed). */
  pending?: { value?: string; at: number };
}

export interface DriverFigures {
  triggersSent: number;
  triggersRefused409: number;
  triggersFailed: number;
  lastTriggerError?: string;
}

export class RunDriver {
  readonly tests: DrivenTest[] = [];
  readonly figures: DriverFigures = { triggersSent: 0, triggersRefused409: 0, triggersFailed: 0 };
  private timer: NodeJS.Timeout | undefined;
  private readonly custom: CustomObjectsApi;
  private turn = 0;

  constructor(
    private readonly admin: KubeConfig,
    private readonly fixture: SoakFixture,
    private readonly view: ClusterView,
    private readonly replicas: ReplicaSet,
    private readonly random: SeededRandom,
    private readonly sandboxTtl: string,
  ) {
    this.custom = admin.makeApiClient(CustomObjectsApi);
  }

  /** Creates `count` tests: api, annotation and schedule in turn. */
  async createTests(count: number): Promise<void> {
    const modes: DriveMode[] = ['api', 'annotation', 'schedule'];
    for (let index = 0; index < count; index++) {
      const mode = modes[index % modes.length]!;
      const name = `soak-${mode}-${index}`;
      const test: RestoreTest = {
        apiVersion: API_VERSION,
        kind: 'RestoreTest',
        metadata: { name, namespace: this.fixture.testNamespace },
        spec: {
          provider: 'velero',
          backupSource: { backupName: 'latest', namespaces: [{ name: this.fixture.source }], providerNamespace: this.fixture.veleroNamespace },
          // Triggered tests: yearly, so only their triggers run them.
          schedule: { cron: mode === 'schedule' ? '* * * * *' : '0 0 1 1 *', timezone: 'UTC' },
          sandbox: { ttl: this.sandboxTtl },
          healthChecks: { checks: shopChecks() },
          // No report is pruned during a soak: invariant 1 counts them all.
          historyLimit: 1000,
        },
      };
      await this.custom.createNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: this.fixture.testNamespace,
        plural: 'restoretests',
        body: await authoredBy(this.admin, test),
      });
      this.tests.push({ name, mode });
    }
  }

  start(): void {
    this.timer = setInterval(() => this.tick(), 1000);
  }

  /** No more triggers, and the scheduled tests suspended, so the last runs can drain. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    for (const test of this.tests.filter((entry) => entry.mode === 'schedule')) {
      for (let attempt = 1; ; attempt++) {
        try {
          await this.custom.patchNamespacedCustomObject(
            { group: GROUP, version: VERSION, namespace: this.fixture.testNamespace, plural: 'restoretests', name: test.name, body: { spec: { schedule: { suspend: true } } } },
            setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
          );
          break;
        } catch (error) {
          if (attempt >= 5) throw error;
          await new Promise((resolve) => setTimeout(resolve, 2000));
        }
      }
    }
  }

  private tick(): void {
    const now = Date.now();
    for (const test of this.tests) {
      if (test.mode === 'schedule') continue;
      const view = this.view.test(test.name);
      if (!view || !isIdle(view)) {
        test.triggerAt = undefined;
        if (view?.run) test.pending = undefined;
        continue;
      }
      if (test.pending?.value !== undefined && test.pending.value === view.handledTrigger) test.pending = undefined;
      if (test.pending && now - test.pending.at < 30_000) continue;
      test.pending = undefined;
      test.triggerAt ??= now + this.random.between(0, 3000);
      if (now < test.triggerAt) continue;
      test.triggerAt = undefined;
      test.pending = { at: now };
      void this.trigger(test).catch((error: unknown) => {
        this.figures.triggersFailed++;
        this.figures.lastTriggerError = `${test.name}: ${(error as Error).message}`;
        test.pending = undefined;
      });
    }
  }

  private async trigger(test: DrivenTest): Promise<void> {
    if (test.mode === 'annotation') {
      const value = `soak-${Date.now()}-${this.random.between(0, 1e6)}`;
      await this.custom.patchNamespacedCustomObject(
        { group: GROUP, version: VERSION, namespace: this.fixture.testNamespace, plural: 'restoretests', name: test.name, body: { metadata: { annotations: { [ANNOTATION_TRIGGER]: value } } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      test.pending = { value, at: Date.now() };
      this.figures.triggersSent++;
      return;
    }
    const up = this.replicas.up();
    if (up.length === 0) throw new Error('no replica is up');
    const replica = up[this.turn++ % up.length]!;
    const response = await fetch(replica.url(`/api/v1/tests/${test.name}/trigger?namespace=${this.fixture.testNamespace}`), {
      method: 'POST',
      signal: AbortSignal.timeout(20_000),
    });
    await response.arrayBuffer();
    if (response.status === 409) {
      // A run or a trigger this view has not shown yet: look again in 5 s.
      this.figures.triggersRefused409++;
      test.pending = { at: Date.now() - 25_000 };
      return;
    }
    if (!response.ok) throw new Error(`POST trigger on ${replica.name} answered ${response.status}`);
    test.pending = { value: response.headers.get('rehearsal-trigger-request') ?? undefined, at: Date.now() };
    this.figures.triggersSent++;
  }
}

/** No run, and no trigger request the engine has not acted on yet. */
function isIdle(test: TestView): boolean {
  return !test.run && (test.triggerRequest === undefined || test.triggerRequest === test.handledTrigger);
}
