// Typed writes to Rehearsal's own resources, and the few reads that must not come from the cache.
// A RestoreTest's status has its own writer, with one field manager per owner (test-status.ts).
import { PatchStrategy, setHeaderOptions, type CustomObjectsApi } from '@kubernetes/client-node';
import {
  GROUP,
  VERSION,
  type OwnerReference,
  type RestoreReport,
  type RestoreTest,
  type RestoreTestSpec,
} from '../domain/resources/resources.js';
import { expandReport, packReport } from '../report-codec/report-encoding.js';
import { TEST_NAME_FIELD } from '../../protocol/stored-report/stored-report.js';
import { kubeCall } from './errors.js';

const TESTS = 'restoretests';
const REPORTS = 'restorereports';
export const FIELD_MANAGER = 'rehearsal';
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const jsonPatch = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);

export class RehearsalClient {
  constructor(private readonly api: CustomObjectsApi) {}

  async getTest(namespace: string, name: string): Promise<RestoreTest> {
    return (await kubeCall(() =>
      this.api.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: TESTS, name }),
    )) as RestoreTest;
  }

  async createTest(test: RestoreTest): Promise<RestoreTest> {
    const namespace = test.metadata.namespace!;
    return (await kubeCall(() =>
      this.api.createNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace,
        plural: TESTS,
        body: test,
        fieldManager: FIELD_MANAGER,
      }),
    )) as RestoreTest;
  }

  /** Replaces the spec, guarded by the resourceVersion the caller read. */
  async replaceTestSpec(test: RestoreTest, spec: RestoreTestSpec): Promise<RestoreTest> {
    const { namespace, name } = test.metadata;
    const body = { ...test, spec };
    delete body.status;
    return (await kubeCall(() =>
      this.api.replaceNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: namespace!,
        plural: TESTS,
        name,
        body,
        fieldManager: FIELD_MANAGER,
      }),
    )) as RestoreTest;
  }

  async deleteTest(namespace: string, name: string): Promise<void> {
    await kubeCall(() =>
      this.api.deleteNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace,
        plural: TESTS,
        name,
        propagationPolicy: 'Background',
      }),
    );
  }

  /** Sets annotations; with resourceVersion the patch fails with Conflict if the object changed. */
  async annotateTest(
    namespace: string,
    name: string,
    annotations: Record<string, string | null>,
    resourceVersion?: string,
  ): Promise<RestoreTest> {
    const metadata: Record<string, unknown> = { annotations };
    if (resourceVersion) metadata.resourceVersion = resourceVersion;
    return (await kubeCall(() =>
      this.api.patchNamespacedCustomObject(
        { group: GROUP, version: VERSION, namespace, plural: TESTS, name, body: { metadata }, fieldManager: FIELD_MANAGER },
        mergePatch,
      ),
    )) as RestoreTest;
  }

  /** Stores the report packed (report-codec/report-encoding.ts); returns it expanded, as every read does. */
  async createReport(report: RestoreReport): Promise<RestoreReport> {
    return expandReport((await kubeCall(() =>
      this.api.createNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: report.metadata.namespace!,
        plural: REPORTS,
        body: packReport(report),
        fieldManager: FIELD_MANAGER,
      }),
    )) as RestoreReport);
  }

  /**
   * Removes the report's managedFields. A create always records one Update entry that lists every
   * field of the report (about as large as the spec); the apiserver keeps it in its watch cache as
   * ~150 small maps, which was half of a stored report's memory there (test/bench/results/
   * footprint.md). A list holding one empty entry is the documented way to clear them; later
   * metadata-only patches (notification records) leave them cleared. Metadata only: the signed,
   * immutable spec is untouched.
   */
  async clearReportManagedFields(namespace: string, name: string): Promise<RestoreReport> {
    return this.patchReportMetadata(namespace, name, { metadata: { managedFields: [{}] } }, mergePatch);
  }

  /**
   * Sets a report's ownerReferences to `keep` (removes the field when empty), only if the report is
   * still at `resourceVersion` (a JSON Patch test: Invalid otherwise). Metadata only: the signed,
   * immutable spec is untouched. The old-form migration (engine/report-migration.ts).
   */
  async replaceReportOwnerReferences(namespace: string, name: string, resourceVersion: string, keep: OwnerReference[]): Promise<void> {
    await this.patchReportMetadata(
      namespace,
      name,
      [
        { op: 'test', path: '/metadata/resourceVersion', value: resourceVersion },
        keep.length > 0 ? { op: 'replace', path: '/metadata/ownerReferences', value: keep } : { op: 'remove', path: '/metadata/ownerReferences' },
      ],
      jsonPatch,
    );
  }

  /** One patch of a report's metadata (the signed spec is immutable), answered expanded. */
  private async patchReportMetadata(namespace: string, name: string, body: object, strategy: typeof mergePatch): Promise<RestoreReport> {
    return expandReport((await kubeCall(() =>
      this.api.patchNamespacedCustomObject(
        { group: GROUP, version: VERSION, namespace, plural: REPORTS, name, body, fieldManager: FIELD_MANAGER },
        strategy,
      ),
    )) as RestoreReport);
  }

  async getReport(namespace: string, name: string): Promise<RestoreReport> {
    return expandReport((await kubeCall(() =>
      this.api.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: REPORTS, name }),
    )) as RestoreReport);
  }

  /**
   * Sets annotations on a report (its signed spec is immutable; annotations are bookkeeping such
   * as notification delivery records). With resourceVersion a changed report fails with Conflict.
   */
  async annotateReport(
    namespace: string,
    name: string,
    annotations: Record<string, string | null>,
    resourceVersion?: string,
  ): Promise<RestoreReport> {
    const metadata: Record<string, unknown> = { annotations };
    if (resourceVersion) metadata.resourceVersion = resourceVersion;
    return this.patchReportMetadata(namespace, name, { metadata }, mergePatch);
  }

  /**
   * A test's reports as the apiserver has them now (expanded), for when the cache cannot be trusted
   * to be current. Selected by spec.test and spec.testRef.name, selectable fields of the CRD
   * (unlike a label they cannot be edited after the report is written); reports stored since issue
   * 17's fifth cut carry the first, older ones the second, and field selectors only AND: one LIST
   * per form. Reports of an older test with the same name are included (the caller tells by uid).
   */
  async listReportsOfTest(namespace: string, test: string): Promise<RestoreReport[]> {
    const lists = await Promise.all(
      [`spec.${TEST_NAME_FIELD}`, 'spec.testRef.name'].map(
        async (field) =>
          (await kubeCall(() =>
            this.api.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: REPORTS, fieldSelector: `${field}=${test}` }),
          )) as { items: RestoreReport[] },
      ),
    );
    return lists.flatMap((list) => list.items).map(expandReport);
  }

  async deleteReport(namespace: string, name: string): Promise<void> {
    await kubeCall(() =>
      this.api.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: REPORTS, name }),
    );
  }
}
