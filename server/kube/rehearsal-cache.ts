// Informer caches of Rehearsal's own resources, shared by the engine and the read API. Reads
// never go to the apiserver: the API's cost per request does not grow with traffic, and the
// engine sees a consistent view. Reports are held twice, compactly: a summary for the read models,
// indexed by test and by UTC day (domain ReportIndex), and the whole report packed
// (packed-report.ts) for the endpoints that return it.
//
// Archived reports (moved out of etcd into the evidence archive, server/archive/) are held the
// same way beside the live ones and enter the same index, so every reader — summary, daily,
// reports, alerts, compliance, PDFs, evidence checks — sees live + archived without knowing. A
// report both live and archived (between the archive upload and the delete of the live copy) is
// indexed once; the live copy wins.
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import {
  API_VERSION,
  type HealthCheckPolicy,
  type RestoreReport,
  type RestoreTest,
} from '../domain/resources/resources.js';
import { expandReportSpec } from '../report-codec/report-encoding.js';
import { ReportIndex, reportTestKeyOf } from '../domain/read-models/report-index.js';
import { flatString, Interner, summarizeReport, type ReportSummary } from '../domain/read-models/report-summary.js';
import { ResilientInformer, type InformerHandler, type InformerMetrics } from './informer.js';
import {
  packReport,
  packedReportsJson,
  unpackReport,
  writePackedReportsJson,
  type PackedReport,
} from '../report-codec/packed-report.js';

const BASE = '/apis/rehearsal.dev/v1alpha1';

/** A cached report: what the read models need, and the whole report packed. */
export interface StoredReport {
  /** "namespace/name", the same string in the store, the index and the verifier. */
  readonly key: string;
  readonly summary: ReportSummary;
  readonly packed: PackedReport;
}

/**
 * The representation the API returns and the evidence needs: managedFields and most metadata
 * are dropped.
 */
function slimReport(object: KubernetesObject): RestoreReport {
  const report = object as unknown as RestoreReport;
  const { name, namespace, uid, resourceVersion, creationTimestamp, labels, ownerReferences } =
    report.metadata;
  return {
    apiVersion: report.apiVersion,
    kind: report.kind,
    metadata: { name, namespace, uid, resourceVersion, creationTimestamp, labels, ownerReferences },
    // Stored packed since issue 17 (report-codec/report-encoding.ts): everything here works on the whole report.
    spec: expandReportSpec(report.spec),
  } as RestoreReport;
}

function slimObject<T>(object: KubernetesObject): T {
  const copy = { ...object, metadata: { ...object.metadata } };
  delete copy.metadata.managedFields;
  return copy as T;
}

export class RehearsalCache {
  readonly tests: ResilientInformer<RestoreTest>;
  readonly reports: ResilientInformer<StoredReport>;
  readonly policies: ResilientInformer<HealthCheckPolicy>;
  readonly reportIndex = new ReportIndex();
  private readonly interner = new Interner();
  private testChanges = 0;
  /** Reports held by the evidence archive, by key "namespace/name". */
  private readonly archived = new Map<string, StoredReport>();
  private readonly archiveHandlers: InformerHandler<StoredReport>[] = [];

  constructor(kubeConfig: KubeConfig, log: Logger, metrics?: InformerMetrics) {
    this.tests = new ResilientInformer<RestoreTest>(
      kubeConfig,
      {
        name: 'restoretests',
        apiVersion: API_VERSION,
        kind: 'RestoreTest',
        collectionPath: `${BASE}/restoretests`,
        project: slimObject,
      },
      log,
      metrics,
    );
    this.reports = new ResilientInformer<StoredReport>(
      kubeConfig,
      {
        name: 'restorereports',
        apiVersion: API_VERSION,
        kind: 'RestoreReport',
        collectionPath: `${BASE}/restorereports`,
        project: (object, key) => this.storeReport(object, key),
      },
      log,
      metrics,
    );
    this.policies = new ResilientInformer<HealthCheckPolicy>(
      kubeConfig,
      {
        name: 'healthcheckpolicies',
        apiVersion: API_VERSION,
        kind: 'HealthCheckPolicy',
        collectionPath: `${BASE}/healthcheckpolicies`,
        project: slimObject,
      },
      log,
      metrics,
    );
    this.reports.onChange((event, _key, current, previous) => {
      if (event === 'delete' && previous) {
        const archived = this.archived.get(previous.key);
        if (archived) this.reportIndex.add(archived.summary, archived.key);
        else this.reportIndex.removeKey(previous.key);
      } else if (current) this.reportIndex.add(current.summary, current.key);
    });
    this.tests.onChange(() => {
      this.testChanges += 1;
    });
  }

  private storeReport(object: KubernetesObject, key: string): StoredReport {
    const report = slimReport(object);
    return { key, summary: summarizeReport(report, this.interner), packed: packReport(report) };
  }

  /** Adds (or replaces) an archived report; indexed unless its live copy still exists. */
  addArchived(report: RestoreReport): void {
    // Flat: a template literal is two cons strings holding the parsed name alive (228,000 at 3,000 tests).
    const key = flatString(`${report.metadata.namespace ?? ''}/${report.metadata.name}`);
    const previous = this.archived.get(key);
    const stored = { key, summary: summarizeReport(report, this.interner), packed: packReport(report) };
    this.archived.set(key, stored);
    if (this.reports.get(key)) return;
    this.reportIndex.add(stored.summary, key);
    for (const handler of this.archiveHandlers) handler(previous ? 'update' : 'add', key, stored, previous);
  }

  /** Drops an archived report (retention ended); unindexed unless a live copy exists. */
  removeArchived(key: string): void {
    const previous = this.archived.get(key);
    if (!previous) return;
    this.archived.delete(key);
    if (this.reports.get(key)) return;
    this.reportIndex.removeKey(key);
    for (const handler of this.archiveHandlers) handler('delete', key, undefined, previous);
  }

  isArchived(key: string): boolean {
    return this.archived.has(key);
  }

  get archivedCount(): number {
    return this.archived.size;
  }

  /** Whole reports of a test ("namespace/name") that are still in etcd, oldest first. */
  liveReportsOfTest(testKey: string): RestoreReport[] {
    const reports: RestoreReport[] = [];
    for (const run of this.reportIndex.runsOfTest(testKey)) {
      const stored = this.reports.get(run.key);
      if (stored) reports.push(unpackReport(stored.packed));
    }
    return reports;
  }

  /** Summaries of a test's reports that are still in etcd, oldest first (cheap: not unpacked). */
  liveSummariesOfTest(testKey: string): ReportSummary[] {
    return this.reportIndex
      .runsOfTest(testKey)
      .filter((run) => this.reports.get(run.key) !== undefined)
      .map((run) => run.report);
  }

  /** Every report still in etcd (key and summary; cheap: not unpacked). */
  liveReports(): IterableIterator<StoredReport> {
    return this.reports.values();
  }

  /** A report still in etcd by its key "namespace/name" (unpacked), not an archived one. */
  liveReport(key: string): RestoreReport | undefined {
    const stored = this.reports.get(key);
    return stored && unpackReport(stored.packed);
  }

  /** Keys of the archived reports of every test ("namespace/name" → keys). */
  archivedKeys(): IterableIterator<string> {
    return this.archived.keys();
  }

  private stored(key: string): StoredReport | undefined {
    return this.reports.get(key) ?? this.archived.get(key);
  }

  /**
   * Changes whenever a cached test or report changes: a response computed from the cache stays
   * valid while it does (apart from the clock).
   */
  get version(): string {
    return `${this.testChanges}.${this.reportIndex.version}`;
  }

  async start(): Promise<void> {
    await Promise.all([this.tests.start(), this.reports.start(), this.policies.start()]);
  }

  stop(): void {
    this.tests.stop();
    this.reports.stop();
    this.policies.stop();
  }

  get synced(): boolean {
    return this.tests.hasSynced && this.reports.hasSynced && this.policies.hasSynced;
  }

  onTestChange(handler: InformerHandler<RestoreTest>): void {
    this.tests.onChange(handler);
  }

  /** Live and archived reports: adds, changes and deletes (retention) alike. */
  onReportChange(handler: InformerHandler<ReportSummary>): void {
    const forward: InformerHandler<StoredReport> = (event, key, current, previous) =>
      handler(event, key, current?.summary, previous?.summary);
    this.reports.onChange(forward);
    this.archiveHandlers.push(forward);
  }

  getTest(namespace: string, name: string): RestoreTest | undefined {
    return this.tests.get(`${namespace}/${name}`);
  }

  listTests(): RestoreTest[] {
    return [...this.tests.values()];
  }

  getPolicy(namespace: string, name: string): HealthCheckPolicy | undefined {
    return this.policies.get(`${namespace}/${name}`);
  }

  /** Summaries of the test's reports, oldest first (by completedAt). */
  reportsOfTest(namespace: string, name: string): ReportSummary[] {
    return this.reportIndex.runsOfTest(`${namespace}/${name}`).map((run) => run.report);
  }

  /** Whole reports of a test ("namespace/name"), oldest first: unpacked, so for occasional use. */
  fullReportsOfTest(testKey: string): RestoreReport[] {
    const reports: RestoreReport[] = [];
    for (const run of this.reportIndex.runsOfTest(testKey)) {
      const stored = this.stored(run.key);
      if (stored) reports.push(unpackReport(stored.packed));
    }
    return reports;
  }

  /** A whole report by its key "namespace/name" (unpacked). */
  fullReport(key: string): RestoreReport | undefined {
    const stored = this.stored(key);
    return stored && unpackReport(stored.packed);
  }

  getReport(namespace: string, name: string): RestoreReport | undefined {
    return this.fullReport(`${namespace}/${name}`);
  }

  /** The JSON array of the given reports (keys "namespace/name"; missing ones are skipped). */
  reportsJson(keys: readonly string[]): Promise<Buffer> {
    const packed: PackedReport[] = [];
    for (const key of keys) {
      const stored = this.stored(key);
      if (stored) packed.push(stored.packed);
    }
    return packedReportsJson(packed);
  }

  /** reportsJson in slices (see ApiCache.writeReportsJson). */
  writeReportsJson(keys: readonly string[], write: (chunk: Buffer) => Promise<boolean>): Promise<void> {
    const packed: PackedReport[] = [];
    for (const key of keys) {
      const stored = this.stored(key); // live or archived, like reportsJson
      if (stored) packed.push(stored.packed);
    }
    return writePackedReportsJson(packed, write);
  }

  testKeyOfReport(report: ReportSummary): string {
    return reportTestKeyOf(report);
  }
}
