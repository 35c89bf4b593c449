// An in-memory stand-in for the informer cache and the RestoreTest writer, with the apiserver's
// behaviours the API depends on: resourceVersion preconditions (Conflict), AlreadyExists,
// NotFound for a missing object or namespace, change events, and a minimal engine that answers a
// trigger-request annotation the way the real one does (status.handledTrigger, phase Running,
// currentRun). The real-cluster behaviour is covered by the integration tests.
import { ReportIndex } from '../../../server/domain/read-models/report-index.js';
import {
  ANNOTATION_TRIGGER,
  API_VERSION,
  type RestoreReport,
  type RestoreTest,
  type RestoreTestSpec,
  type RunResult,
} from '../../../server/domain/resources/resources.js';
import type { ScheduleInfo } from '../../../server/domain/read-models/views.js';
import { KubeError } from '../../../server/kube/errors.js';
import type { InformerHandler } from '../../../server/kube/informer.js';
import {
  BackupToolUnavailableError,
  type ApiCache,
  type ScheduleSource,
  type TestWriter,
} from '../../../server/api/ports.js';

const clone = <T>(value: T): T => structuredClone(value);

export interface FakeEngineOptions {
  /** false: nobody picks up triggers (no leader). */
  running: boolean;
  /** Delay before the engine acknowledges a trigger. */
  delayMs: number;
}

export class FakeCluster implements ApiCache {
  synced = true;
  readonly reportIndex = new ReportIndex();
  readonly namespaces = new Set(['rehearsal-system', 'team-a', 'team-b']);
  readonly engine: FakeEngineOptions = { running: true, delayMs: 20 };
  /** Calls that went to the "apiserver", for assertions. */
  readonly writes: string[] = [];
  /** Make the next N writes of a kind fail with Conflict (a concurrent writer). */
  conflictsToInject = 0;
  /** Replaces the next write's outcome (e.g. an Unavailable or Invalid apiserver answer). */
  failNextWrite: KubeError | Error | undefined;
  private readonly tests = new Map<string, RestoreTest>();
  private readonly handlers: InformerHandler<RestoreTest>[] = [];
  private resourceVersionCounter = 100;
  private changes = 0;
  private readonly wholeReports = new Map<string, RestoreReport>();

  // ------------------------------------------------------------- ApiCache

  listTests(): RestoreTest[] {
    return [...this.tests.values()].map(clone);
  }

  getTest(namespace: string, name: string): RestoreTest | undefined {
    const test = this.tests.get(`${namespace}/${name}`);
    return test ? clone(test) : undefined;
  }

  onTestChange(handler: InformerHandler<RestoreTest>): void {
    this.handlers.push(handler);
  }

  get version(): string {
    return `${this.changes}.${this.reportIndex.version}`;
  }

  fullReport(key: string): RestoreReport | undefined {
    const report = this.wholeReports.get(key);
    return report ? clone(report) : undefined;
  }

  async reportsJson(keys: readonly string[]): Promise<Buffer> {
    const reports = keys.map((key) => this.wholeReports.get(key)).filter((report) => report !== undefined);
    return Buffer.from(JSON.stringify(reports));
  }

  /** Like the real cache: the array in slices of 100 reports, stopping when `write` says so. */
  async writeReportsJson(keys: readonly string[], write: (chunk: Buffer) => Promise<boolean>): Promise<void> {
    const json = (await this.reportsJson(keys)).toString('utf8');
    const reports = JSON.parse(json) as unknown[];
    for (let start = 0; start === 0 || start < reports.length; start += 100) {
      const slice = reports.slice(start, start + 100).map((report) => JSON.stringify(report));
      const last = start + 100 >= reports.length;
      const text = `${start === 0 ? '[' : ','}${slice.join(',')}${last ? ']' : ''}`;
      if (!(await write(Buffer.from(text))) || last) return;
    }
  }

  // ------------------------------------------------------------- seeding

  seedTest(test: RestoreTest): RestoreTest {
    const stored = clone(test);
    stored.metadata.resourceVersion = this.nextVersion();
    stored.metadata.uid ??= `uid-${stored.metadata.name}`;
    this.tests.set(this.keyOf(stored), stored);
    return clone(stored);
  }

  seedReport(report: RestoreReport): void {
    this.reportIndex.add(report);
    this.wholeReports.set(`${report.metadata.namespace ?? ''}/${report.metadata.name}`, clone(report));
  }

  // ------------------------------------------------------------- writes (see writerOf)

  async createTest(test: RestoreTest): Promise<RestoreTest> {
    this.writes.push(`create ${test.metadata.namespace}/${test.metadata.name}`);
    this.maybeFail();
    const namespace = test.metadata.namespace!;
    if (!this.namespaces.has(namespace))
      throw new KubeError('NotFound', 404, `namespaces "${namespace}" not found`);
    const key = this.keyOf(test);
    if (this.tests.has(key)) {
      throw new KubeError(
        'AlreadyExists',
        409,
        `restoretests.rehearsal.dev "${test.metadata.name}" already exists`,
      );
    }
    const stored: RestoreTest = {
      ...clone(test),
      metadata: {
        ...clone(test.metadata),
        uid: `uid-${test.metadata.name}`,
        resourceVersion: this.nextVersion(),
        generation: 1,
      },
    };
    this.tests.set(key, stored);
    this.emit('add', stored, undefined);
    return clone(stored);
  }

  async replaceTestSpec(test: RestoreTest, spec: RestoreTestSpec): Promise<RestoreTest> {
    this.writes.push(`replace ${test.metadata.namespace}/${test.metadata.name}`);
    this.maybeFail();
    const current = this.requireStored(test.metadata.namespace!, test.metadata.name);
    this.checkVersion(current, test.metadata.resourceVersion);
    const updated: RestoreTest = {
      ...clone(current),
      metadata: {
        ...clone(current.metadata),
        resourceVersion: this.nextVersion(),
        generation: (current.metadata.generation ?? 1) + 1,
      },
      spec: clone(spec),
    };
    this.tests.set(this.keyOf(updated), updated);
    this.emit('update', updated, current);
    return clone(updated);
  }

  async deleteTest(namespace: string, name: string): Promise<void> {
    this.writes.push(`delete ${namespace}/${name}`);
    this.maybeFail();
    const current = this.requireStored(namespace, name);
    this.tests.delete(this.keyOf(current));
    for (const run of [...this.reportIndex.runsOfTest(`${namespace}/${name}`)]) {
      this.reportIndex.removeKey(run.key);
      this.wholeReports.delete(run.key);
    }
    this.emit('delete', undefined, current);
  }

  async annotateTest(
    namespace: string,
    name: string,
    annotations: Record<string, string | null>,
    resourceVersion?: string,
  ): Promise<RestoreTest> {
    this.writes.push(`annotate ${namespace}/${name}`);
    this.maybeFail();
    const current = this.requireStored(namespace, name);
    if (resourceVersion) this.checkVersion(current, resourceVersion);
    const merged = { ...(current.metadata.annotations ?? {}) };
    for (const [key, value] of Object.entries(annotations)) {
      if (value === null) delete merged[key];
      else merged[key] = value;
    }
    const updated: RestoreTest = {
      ...clone(current),
      metadata: { ...clone(current.metadata), annotations: merged, resourceVersion: this.nextVersion() },
    };
    this.tests.set(this.keyOf(updated), updated);
    this.emit('update', updated, current);
    const requested = merged[ANNOTATION_TRIGGER];
    if (requested && this.engine.running) {
      setTimeout(() => this.startRun(namespace, name, requested), this.engine.delayMs).unref();
    }
    return clone(updated);
  }

  /** A concurrent writer changes the object (bumps its resourceVersion). */
  touch(namespace: string, name: string, change: (test: RestoreTest) => void = () => {}): void {
    const current = this.requireStored(namespace, name);
    const updated = clone(current);
    change(updated);
    updated.metadata.resourceVersion = this.nextVersion();
    this.tests.set(this.keyOf(updated), updated);
    this.emit('update', updated, current);
  }

  // ------------------------------------------------------------- helpers

  private startRun(namespace: string, name: string, requested: string): void {
    const current = this.tests.get(`${namespace}/${name}`);
    if (!current || current.status?.handledTrigger === requested) return;
    this.touch(namespace, name, (test) => {
      test.status = {
        ...(test.status ?? {}),
        phase: 'Running',
        handledTrigger: requested,
        currentRun: {
          id: 'm4nl1',
          trigger: 'manual',
          scheduledAt: new Date().toISOString(),
          queuedAt: new Date().toISOString(),
          stage: 'Queued',
        },
      };
    });
  }

  private maybeFail(): void {
    if (this.failNextWrite) {
      const error = this.failNextWrite;
      this.failNextWrite = undefined;
      throw error;
    }
    if (this.conflictsToInject > 0) {
      this.conflictsToInject -= 1;
      throw new KubeError(
        'Conflict',
        409,
        'the object has been modified; please apply your changes to the latest version',
      );
    }
  }

  private checkVersion(current: RestoreTest, resourceVersion: string | undefined): void {
    if (resourceVersion && resourceVersion !== current.metadata.resourceVersion) {
      throw new KubeError(
        'Conflict',
        409,
        'the object has been modified; please apply your changes to the latest version',
      );
    }
  }

  private requireStored(namespace: string, name: string): RestoreTest {
    const current = this.tests.get(`${namespace}/${name}`);
    if (!current) throw new KubeError('NotFound', 404, `restoretests.rehearsal.dev "${name}" not found`);
    return current;
  }

  private keyOf(test: RestoreTest): string {
    return `${test.metadata.namespace}/${test.metadata.name}`;
  }

  private nextVersion(): string {
    this.resourceVersionCounter += 1;
    this.changes += 1;
    return String(this.resourceVersionCounter);
  }

  private emit(
    event: 'add' | 'update' | 'delete',
    current: RestoreTest | undefined,
    previous: RestoreTest | undefined,
  ): void {
    const key = this.keyOf((current ?? previous)!);
    for (const handler of this.handlers) handler(event, key, current ? clone(current) : undefined, previous);
  }
}

/** The TestWriter's getTest (a GET against the apiserver): NotFound like the real one. */
export function writerOf(cluster: FakeCluster): TestWriter {
  return {
    getTest: async (namespace, name) => {
      const test = cluster.getTest(namespace, name);
      if (!test) throw new KubeError('NotFound', 404, `restoretests.rehearsal.dev "${name}" not found`);
      return test;
    },
    createTest: (test) => cluster.createTest(test),
    replaceTestSpec: (test, spec) => cluster.replaceTestSpec(test, spec),
    deleteTest: (namespace, name) => cluster.deleteTest(namespace, name),
    annotateTest: (namespace, name, annotations, resourceVersion) =>
      cluster.annotateTest(namespace, name, annotations, resourceVersion),
  };
}

export class FakeSchedules implements ScheduleSource {
  available = true;
  schedules: ScheduleInfo[] = [
    {
      name: 'nightly',
      cron: '0 1 * * *',
      namespaces: ['payments', 'shop'],
      lastBackup: '2026-03-15T01:04:10Z',
    },
  ];

  async listSchedules(): Promise<ScheduleInfo[]> {
    if (!this.available) {
      throw new BackupToolUnavailableError(
        'Velero API schedules.velero.io/v1 in namespace velero is unavailable: the cluster does not serve it (is Velero installed?)',
      );
    }
    return this.schedules;
  }
}

// ------------------------------------------------------------- fixtures

export function restoreTest(options: {
  name: string;
  namespace?: string;
  sources?: string[];
  cron?: string;
  maxRTO?: string;
  status?: RestoreTest['status'];
  spec?: Partial<RestoreTestSpec>;
}): RestoreTest {
  return {
    apiVersion: API_VERSION,
    kind: 'RestoreTest',
    metadata: { name: options.name, namespace: options.namespace ?? 'rehearsal-system' },
    spec: {
      provider: 'velero',
      backupSource: {
        backupName: 'latest',
        namespaces: (options.sources ?? [options.name]).map((name) => ({ name })),
      },
      schedule: { cron: options.cron ?? '0 2 * * *', timezone: 'UTC' },
      sandbox: { namespacePrefix: 'rehearsal', ttl: '1h', networkIsolation: 'strict' },
      ...(options.maxRTO ? { sla: { maxRTO: options.maxRTO, alertOnExceed: true } } : {}),
      historyLimit: 90,
      ...options.spec,
    },
    ...(options.status ? { status: options.status } : {}),
  };
}

let runCounter = 0;

export function restoreReport(options: {
  test: string;
  namespace?: string;
  completedAt: string;
  result?: RunResult;
  score?: number;
  rtoSeconds?: number;
  rtoTarget?: string;
}): RestoreReport {
  runCounter += 1;
  const runId = `r${String(runCounter).padStart(4, '0')}`;
  const namespace = options.namespace ?? 'rehearsal-system';
  const result = options.result ?? 'pass';
  const score = options.score ?? (result === 'pass' ? 95 : result === 'partial' ? 80 : 40);
  const started = new Date(
    Date.parse(options.completedAt) - (options.rtoSeconds ?? 600) * 1000 - 30_000,
  ).toISOString();
  return {
    apiVersion: API_VERSION,
    kind: 'RestoreReport',
    metadata: {
      name: `${options.test}-${runId}`,
      namespace,
      uid: `uid-${runId}`,
      creationTimestamp: options.completedAt,
      labels: { 'rehearsal.dev/test': options.test, 'rehearsal.dev/run': runId },
      ownerReferences: [
        {
          apiVersion: API_VERSION,
          kind: 'RestoreTest',
          name: options.test,
          uid: `uid-${options.test}`,
          controller: true,
        },
      ],
    },
    spec: {
      testRef: { name: options.test, namespace },
      runId,
      trigger: 'schedule',
      scheduledAt: started,
      startedAt: started,
      completedAt: options.completedAt,
      sourceNamespaces: [options.test],
      backup: { provider: 'velero', name: 'nightly-20260315010000', completedAt: started, age: '30s' },
      sandboxNamespaces: [`rehearsal-${options.test}-${runId}`],
      restore: {
        name: `${options.test}-${runId}`,
        namespace: 'velero',
        phase: 'Completed',
        warnings: 0,
        errors: 0,
        itemsRestored: 12,
      },
      score,
      result,
      levels: [
        { name: 'restoreIntegrity', points: 25, maxPoints: 25, tested: true, detail: 'restore Completed' },
      ],
      checks: [
        {
          name: 'pods-ready',
          kind: 'podsReady',
          status: result === 'fail' ? 'fail' : 'pass',
          message: '2/2 ready',
          duration: '3s',
        },
      ],
      completeness: [{ kind: 'Deployment', backedUp: 1, restored: 1 }],
      rto: {
        measured: `${Math.floor((options.rtoSeconds ?? 600) / 60)}m`,
        measuredSeconds: options.rtoSeconds ?? 600,
        ...(options.rtoTarget
          ? { target: options.rtoTarget, withinSLA: (options.rtoSeconds ?? 600) <= 900 }
          : {}),
        phases: { restoreRequestedAt: started, checksCompletedAt: options.completedAt },
      },
      ...(result === 'fail' ? { failure: { reason: 'ChecksFailed', message: 'pods-ready failed' } } : {}),
    },
  };
}
