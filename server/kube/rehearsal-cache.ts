// Informer caches of Rehearsal's own resources, shared by the engine and the read API. Reads
// never go to the apiserver: the API's cost per request does not grow with traffic, and the
// engine sees a consistent view. Reports are indexed by test and by UTC day (domain ReportIndex).
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import {
  API_VERSION,
  type HealthCheckPolicy,
  type RestoreReport,
  type RestoreTest,
} from '../domain/resources.js';
import { ReportIndex, reportTestKeyOf } from '../domain/report-index.js';
import { ResilientInformer, type InformerHandler, type InformerMetrics } from './informer.js';

const BASE = '/apis/rehearsal.dev/v1alpha1';

/**
 * What a cached report keeps. managedFields and most metadata are dropped: the cache must hold
 * 90,000 reports inside the memory budget, and the API returns only what the evidence needs.
 */
function slimReport(object: KubernetesObject): RestoreReport {
  const report = object as unknown as RestoreReport;
  const { name, namespace, uid, resourceVersion, creationTimestamp, labels, ownerReferences } = report.metadata;
  return {
    apiVersion: report.apiVersion,
    kind: report.kind,
    metadata: { name, namespace, uid, resourceVersion, creationTimestamp, labels, ownerReferences },
    spec: report.spec,
  } as RestoreReport;
}

function slimObject<T>(object: KubernetesObject): T {
  const copy = { ...object, metadata: { ...object.metadata } };
  delete copy.metadata.managedFields;
  return copy as T;
}

export class RehearsalCache {
  readonly tests: ResilientInformer<RestoreTest>;
  readonly reports: ResilientInformer<RestoreReport>;
  readonly policies: ResilientInformer<HealthCheckPolicy>;
  readonly reportIndex = new ReportIndex();

  constructor(kubeConfig: KubeConfig, log: Logger, metrics?: InformerMetrics) {
    this.tests = new ResilientInformer<RestoreTest>(
      kubeConfig,
      { name: 'restoretests', apiVersion: API_VERSION, kind: 'RestoreTest', collectionPath: `${BASE}/restoretests`, project: slimObject },
      log,
      metrics,
    );
    this.reports = new ResilientInformer<RestoreReport>(
      kubeConfig,
      { name: 'restorereports', apiVersion: API_VERSION, kind: 'RestoreReport', collectionPath: `${BASE}/restorereports`, project: slimReport },
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
      if (event === 'delete' && previous) this.reportIndex.remove(previous);
      else if (current) this.reportIndex.add(current);
    });
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

  onReportChange(handler: InformerHandler<RestoreReport>): void {
    this.reports.onChange(handler);
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

  /** The test's reports, oldest first (by completedAt). */
  reportsOfTest(namespace: string, name: string): RestoreReport[] {
    return this.reportIndex.runsOfTest(`${namespace}/${name}`).map((run) => run.report);
  }

  getReport(namespace: string, name: string): RestoreReport | undefined {
    return this.reports.get(`${namespace}/${name}`);
  }

  testKeyOfReport(report: RestoreReport): string {
    return reportTestKeyOf(report);
  }
}
