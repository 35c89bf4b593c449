// One ConfigMap per diagnosed run, beside its RestoreReport and owned by it (garbage-collected with
// the report, and so with the test). The diagnosis is gzip-compressed JSON in binaryData: a few KB
// in etcd, outside the report (which every API replica keeps in memory) and never in a report's
// signed content.
import { gunzipSync, gzipSync } from 'node:zlib';
import type { CoreV1Api, V1ConfigMap } from '@kubernetes/client-node';
import { bound, MAX_DIAGNOSIS_BYTES, type RunDiagnosis } from '../domain/diagnosis/diagnosis.js';
import { API_VERSION, type RestoreReport } from '../domain/resources/resources.js';
import { isKind, kubeCall } from '../kube/errors.js';

export const DIAGNOSIS_KEY = 'diagnosis.json.gz';
export const LABEL_DIAGNOSIS = 'rehearsal.dev/diagnosis';

/** Name of the diagnosis of a report (report names are at most 63 characters). */
export function diagnosisName(reportName: string): string {
  return `${reportName}-diagnosis`;
}

/** Most a stored diagnosis may take, compressed (text that compresses badly is cut further). */
export const MAX_STORED_BYTES = 8 * 1024;

export function encodeDiagnosis(diagnosis: RunDiagnosis): Buffer {
  return gzipSync(Buffer.from(JSON.stringify(diagnosis), 'utf8'), { level: 9 });
}

/** The compressed diagnosis, cut (logs, then events, then pods) until it fits MAX_STORED_BYTES. */
export function compressWithinBound(diagnosis: RunDiagnosis): { diagnosis: RunDiagnosis; compressed: Buffer } {
  let current = diagnosis;
  let compressed = encodeDiagnosis(current);
  let limit = MAX_DIAGNOSIS_BYTES;
  while (compressed.length > MAX_STORED_BYTES && limit > 1_000) {
    limit = Math.floor(limit * 0.7);
    current = bound(current, limit);
    compressed = encodeDiagnosis(current);
  }
  return { diagnosis: current, compressed };
}

export class DiagnosisStore {
  constructor(private readonly core: Pick<CoreV1Api, 'createNamespacedConfigMap' | 'readNamespacedConfigMap'>) {}

  /** Stores the diagnosis; false when one was stored already (a diagnosis is written once). */
  async save(report: RestoreReport, diagnosis: RunDiagnosis): Promise<{ created: boolean; bytes: number }> {
    const { compressed } = compressWithinBound(diagnosis);
    const body: V1ConfigMap = {
      metadata: {
        name: diagnosisName(report.metadata.name),
        namespace: report.metadata.namespace!,
        labels: {
          ...(report.metadata.labels ?? {}),
          [LABEL_DIAGNOSIS]: 'true',
        },
        ownerReferences: [
          { apiVersion: API_VERSION, kind: 'RestoreReport', name: report.metadata.name, uid: report.metadata.uid ?? '' },
        ],
      },
      binaryData: { [DIAGNOSIS_KEY]: compressed.toString('base64') },
    };
    try {
      await kubeCall(() => this.core.createNamespacedConfigMap({ namespace: report.metadata.namespace!, body }));
      return { created: true, bytes: compressed.length };
    } catch (error) {
      if (isKind(error, 'AlreadyExists')) return { created: false, bytes: compressed.length };
      throw error;
    }
  }

  async exists(namespace: string, reportName: string): Promise<boolean> {
    return (await this.load(namespace, reportName)) !== undefined;
  }

  /** The stored diagnosis, or undefined when the run has none. */
  async load(namespace: string, reportName: string): Promise<RunDiagnosis | undefined> {
    let configMap: V1ConfigMap;
    try {
      configMap = await kubeCall(() => this.core.readNamespacedConfigMap({ namespace, name: diagnosisName(reportName) }));
    } catch (error) {
      if (isKind(error, 'NotFound')) return undefined;
      throw error;
    }
    const data = configMap.binaryData?.[DIAGNOSIS_KEY];
    if (!data) return undefined;
    return JSON.parse(gunzipSync(Buffer.from(data, 'base64')).toString('utf8')) as RunDiagnosis;
  }
}
