// One ConfigMap per diagnosed run, in the SERVER'S namespace, named after the report it belongs to
// (<report namespace>.<report name>.diagnosis). The diagnosis is gzip-compressed JSON in binaryData:
// at most 32 KiB in etcd, outside the report (which every API replica keeps in memory) and never in a
// report's signed content.
//
// Why the server's namespace (issue 26): the leader reads this object back, so it must be one no
// tenant can write. Beside the report (where it used to be) an editor of the test's namespace could
// pre-create it under the predictable name, or rewrite it after the server made it: a gzip bomb
// there killed the leader on every run, for the whole cluster, and a forged diagnosis was served as
// ours. An ownerReference or a label proves nothing in a namespace the tenant can write (they can
// copy both), and a digest recorded elsewhere would need a second writer of the report. In the
// server's namespace only the server and cluster administrators write; it also keeps the restored
// application's log lines and event messages away from plain `view` in the test's namespace (the
// API decides who sees them raw). What is stored is still read as untrusted bytes: at most
// MAX_READ_COMPRESSED_BYTES are decoded, inflated to at most MAX_INFLATED_BYTES, parsed with a depth
// bound, and accepted only when it names the run it is read for.
//
// Cross-namespace ownerReferences do not exist, so the garbage collector cannot remove these with
// their reports: the collector deletes a diagnosis when its report's delete is seen, and sweeps
// those whose report is gone whenever it starts leading (diagnosis-collector.ts).
import { gunzipSync, gzipSync } from 'node:zlib';
import type { CoreV1Api, V1ConfigMap } from '@kubernetes/client-node';
import { isPlainObject, parseBoundedJson } from '../domain/common/bounded-json.js';
import { bound, MAX_DIAGNOSIS_BYTES, type RunDiagnosis } from '../domain/diagnosis/diagnosis.js';
import type { RestoreReport } from '../domain/resources/resources.js';
import { isKind, kubeCall } from '../kube/errors.js';

export const DIAGNOSIS_KEY = 'diagnosis.json.gz';
export const LABEL_DIAGNOSIS = 'rehearsal.dev/diagnosis';
/** "<namespace>/<name>" of the report a stored diagnosis belongs to. */
export const ANNOTATION_REPORT = 'rehearsal.dev/report';
export const ANNOTATION_RUN = 'rehearsal.dev/run-id';

/** The run a diagnosis is stored for and read back for. */
export interface DiagnosedRun {
  namespace: string;
  /** The RestoreReport's name (<test>-<run id>). */
  name: string;
  runId: string;
}

/**
 * Name of the diagnosis of a report in the server's namespace. A namespace name has no dot, so
 * the first dot separates the two parts; at most 63 + 1 + 69 + 10 characters (a ConfigMap name
 * may have 253).
 */
export function diagnosisName(reportNamespace: string, reportName: string): string {
  return `${reportNamespace}.${reportName}.diagnosis`;
}

/**
 * Most a stored diagnosis may take, compressed (text that compresses badly is cut further). 32 KiB
 * since the logs follow spec.logCollection (issue 30: up to 64 KiB of lines before compression); a
 * ConfigMap may hold 1 MiB, and every read below stays bounded.
 */
export const MAX_STORED_BYTES = 32 * 1024;
/** Most compressed bytes a read decodes: anything larger was not written by this code. */
export const MAX_READ_COMPRESSED_BYTES = 4 * MAX_STORED_BYTES;
/** Most bytes a read inflates to (the JSON is bounded at MAX_DIAGNOSIS_BYTES before compression). */
export const MAX_INFLATED_BYTES = 8 * MAX_DIAGNOSIS_BYTES;
/** A diagnosis is a few levels deep (diagnosis → pods → containers → fields). */
const MAX_JSON_DEPTH = 8;

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

export class DiagnosisUnreadableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DiagnosisUnreadableError';
  }
}

const ARRAYS = ['sandboxes', 'hints', 'pods', 'events', 'claims', 'logs'] as const;

/**
 * The diagnosis of `run` from the base64 text of a stored object, or DiagnosisUnreadableError:
 * bounded at every step (base64 length, inflated size, JSON length and depth) and accepted only
 * when it has the shape of a diagnosis and names the run it is read for.
 */
export function decodeDiagnosis(base64: string, run: DiagnosedRun): RunDiagnosis {
  // 4 base64 characters per 3 bytes: refuse before decoding anything larger.
  if (base64.length > Math.ceil(MAX_READ_COMPRESSED_BYTES / 3) * 4) {
    throw new DiagnosisUnreadableError(`stored diagnosis is larger than ${MAX_READ_COMPRESSED_BYTES} bytes compressed`);
  }
  let text: string;
  try {
    text = gunzipSync(Buffer.from(base64, 'base64'), { maxOutputLength: MAX_INFLATED_BYTES }).toString('utf8');
  } catch (error) {
    const tooLarge = (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE';
    throw new DiagnosisUnreadableError(
      tooLarge ? `stored diagnosis inflates to more than ${MAX_INFLATED_BYTES} bytes` : 'stored diagnosis is not gzip',
    );
  }
  let value: unknown;
  try {
    value = parseBoundedJson(text, { maxLength: MAX_INFLATED_BYTES, maxDepth: MAX_JSON_DEPTH });
  } catch (error) {
    throw new DiagnosisUnreadableError(`stored diagnosis: ${(error as Error).message}`);
  }
  if (!isPlainObject(value) || !isPlainObject(value.test) || ARRAYS.some((field) => !Array.isArray(value[field]))) {
    throw new DiagnosisUnreadableError('stored diagnosis does not have the shape of a diagnosis');
  }
  if (value.runId !== run.runId || value.report !== run.name || value.test.namespace !== run.namespace) {
    throw new DiagnosisUnreadableError(`stored diagnosis names another run than ${run.namespace}/${run.name}`);
  }
  return value as unknown as RunDiagnosis;
}

type DiagnosisCore = Pick<
  CoreV1Api,
  'createNamespacedConfigMap' | 'readNamespacedConfigMap' | 'deleteNamespacedConfigMap' | 'listNamespacedConfigMap'
>;

export class DiagnosisStore {
  constructor(
    private readonly core: DiagnosisCore,
    /** The server's namespace: the only place diagnoses are written to and read from. */
    private readonly namespace: string,
  ) {}

  /** Stores the diagnosis; false when one was stored already (a diagnosis is written once). */
  async save(report: RestoreReport, diagnosis: RunDiagnosis): Promise<{ created: boolean; bytes: number }> {
    const { compressed } = compressWithinBound(diagnosis);
    const reportNamespace = report.metadata.namespace!;
    const body: V1ConfigMap = {
      metadata: {
        name: diagnosisName(reportNamespace, report.metadata.name),
        namespace: this.namespace,
        labels: { [LABEL_DIAGNOSIS]: 'true' },
        annotations: {
          [ANNOTATION_REPORT]: `${reportNamespace}/${report.metadata.name}`,
          [ANNOTATION_RUN]: report.spec.runId,
        },
      },
      binaryData: { [DIAGNOSIS_KEY]: compressed.toString('base64') },
    };
    try {
      await kubeCall(() => this.core.createNamespacedConfigMap({ namespace: this.namespace, body }));
      return { created: true, bytes: compressed.length };
    } catch (error) {
      if (isKind(error, 'AlreadyExists')) return { created: false, bytes: compressed.length };
      throw error;
    }
  }

  /**
   * The stored diagnosis of `run`, or undefined when it has none. Throws
   * DiagnosisUnreadableError for an object that is there but not a diagnosis of this run.
   */
  async load(run: DiagnosedRun): Promise<RunDiagnosis | undefined> {
    const configMap = await this.read(run);
    if (!configMap) return undefined;
    const annotations = configMap.metadata?.annotations ?? {};
    if (annotations[ANNOTATION_REPORT] !== `${run.namespace}/${run.name}` || annotations[ANNOTATION_RUN] !== run.runId) {
      throw new DiagnosisUnreadableError(`ConfigMap ${configMap.metadata?.name} is not the diagnosis of run ${run.runId}`);
    }
    const data = configMap.binaryData?.[DIAGNOSIS_KEY];
    if (!data) throw new DiagnosisUnreadableError(`ConfigMap ${configMap.metadata?.name} holds no ${DIAGNOSIS_KEY}`);
    return decodeDiagnosis(data, run);
  }

  /** Deletes the diagnosis of a report (its report is gone). */
  async remove(reportNamespace: string, reportName: string): Promise<void> {
    try {
      await kubeCall(() =>
        this.core.deleteNamespacedConfigMap({ namespace: this.namespace, name: diagnosisName(reportNamespace, reportName) }),
      );
    } catch (error) {
      if (!isKind(error, 'NotFound')) throw error;
    }
  }

  /**
   * Deletes every stored diagnosis whose report `isLive` no longer knows; returns how many. Ones
   * younger than `minAgeMs` are left alone (their report may not be in the caller's cache yet).
   */
  async sweep(isLive: (reportNamespace: string, reportName: string) => boolean, now: Date, minAgeMs: number): Promise<number> {
    const list = await kubeCall(() =>
      this.core.listNamespacedConfigMap({ namespace: this.namespace, labelSelector: `${LABEL_DIAGNOSIS}=true` }),
    );
    let removed = 0;
    for (const configMap of list.items) {
      const [reportNamespace, reportName] = (configMap.metadata?.annotations?.[ANNOTATION_REPORT] ?? '').split('/');
      if (reportNamespace && reportName && isLive(reportNamespace, reportName)) continue;
      const created = configMap.metadata?.creationTimestamp;
      if (created && now.getTime() - new Date(created).getTime() < minAgeMs) continue;
      try {
        await kubeCall(() => this.core.deleteNamespacedConfigMap({ namespace: this.namespace, name: configMap.metadata!.name! }));
        removed += 1;
      } catch (error) {
        if (!isKind(error, 'NotFound')) throw error;
      }
    }
    return removed;
  }

  private async read(run: DiagnosedRun): Promise<V1ConfigMap | undefined> {
    try {
      return await kubeCall(() =>
        this.core.readNamespacedConfigMap({ namespace: this.namespace, name: diagnosisName(run.namespace, run.name) }),
      );
    } catch (error) {
      if (isKind(error, 'NotFound')) return undefined;
      throw error;
    }
  }
}
