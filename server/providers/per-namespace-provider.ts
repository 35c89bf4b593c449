// The provider shape shared by tools that keep their backups in the application's own namespace and
// restore one application per restore object into a target namespace: Kasten (RestorePoint →
// RestoreAction with targetNamespace) and Trilio (Backup → Restore with restoreNamespace). Each tool
// supplies the translations (PerNamespaceTool); the rules live here once:
// - one source namespace per test (the tools restore one application per request; a test of
//   several namespaces is refused at backup selection with a clear message, not half-restored);
// - "latest"/"" = the newest usable backup in the source namespace; a named backup must exist
//   there and be usable;
// - the restore object is created IN THE SANDBOX (the target), never in the source namespace, and
//   its target is the sandbox of the checked mapping; an existing object of the same name is adopted
//   only when it asks for exactly the same thing.
import type { Provider } from '../domain/resources.js';
import type { CustomResources } from './custom-resources.js';
import {
  assertNamespaceMapping,
  ProviderError,
  type BackupInfo,
  type BackupProvider,
  type RestoreProgress,
  type RestoreRef,
  type RestoreRequest,
} from './provider.js';
import { isLatest } from './velero/backup-selection.js';

export interface ToolObject {
  metadata: { name: string; namespace?: string; creationTimestamp?: string; deletionTimestamp?: string };
}

export interface PerNamespaceTool<B extends ToolObject, R extends ToolObject> {
  readonly provider: Provider;
  /** "Kasten restore point", "Trilio backup": used in messages. */
  readonly backupNoun: string;
  readonly backups: CustomResources<B>;
  readonly restores: CustomResources<R>;
  /** When the backup finished (RFC 3339), if the tool says. */
  completedAt(backup: B): string | undefined;
  /** Why the backup cannot be restored, or undefined when it can. */
  unusable(backup: B): string | undefined;
  totalItems?(backup: B): number | undefined;
  restoreBody(request: {
    name: string;
    labels: Record<string, string>;
    backup: string;
    source: string;
    sandbox: string;
  }): R & {
    metadata: { name: string };
  };
  /** Whether an existing restore object asks for the same backup, source and target. */
  sameRequest(existing: R, wanted: R): boolean;
  progress(restore: R): RestoreProgress;
}

function time(value: string | undefined): number {
  const parsed = value ? Date.parse(value) : NaN;
  return Number.isNaN(parsed) ? -Infinity : parsed;
}

export class PerNamespaceProvider<B extends ToolObject, R extends ToolObject> implements BackupProvider {
  readonly name: Provider;

  constructor(private readonly tool: PerNamespaceTool<B, R>) {
    this.name = tool.provider;
  }

  async selectBackup(sourceNamespaces: readonly string[], backupName: string): Promise<BackupInfo> {
    const noun = this.tool.backupNoun;
    if (sourceNamespaces.length !== 1) {
      throw new ProviderError(
        'BackupNotFound',
        `a ${noun} covers one application namespace and this test has ${sourceNamespaces.length}; ` +
          'create one RestoreTest per namespace',
      );
    }
    const source = sourceNamespaces[0] as string;
    let chosen: B | undefined;
    if (isLatest(backupName)) {
      const candidates = (await this.tool.backups.list(source))
        .filter((backup) => this.tool.unusable(backup) === undefined)
        .sort(
          (left, right) =>
            time(this.tool.completedAt(right) ?? right.metadata.creationTimestamp) -
              time(this.tool.completedAt(left) ?? left.metadata.creationTimestamp) ||
            (right.metadata.name < left.metadata.name ? -1 : 1),
        );
      chosen = candidates[0];
      if (!chosen) throw new ProviderError('BackupNotFound', `no usable ${noun} in namespace ${source}`);
    } else {
      chosen = await this.tool.backups.get(source, backupName);
      if (!chosen)
        throw new ProviderError('BackupNotFound', `${noun} ${backupName} not found in namespace ${source}`);
      const why = this.tool.unusable(chosen);
      if (why)
        throw new ProviderError('BackupNotFound', `${noun} ${backupName} in namespace ${source} ${why}`);
    }
    const info: BackupInfo = { name: chosen.metadata.name, includedNamespaces: [source] };
    const completedAt = this.tool.completedAt(chosen);
    if (completedAt) info.completedAt = completedAt;
    const total = this.tool.totalItems?.(chosen);
    if (total !== undefined) info.totalItems = total;
    return info;
  }

  async startRestore(request: RestoreRequest): Promise<RestoreRef> {
    assertNamespaceMapping(request.mapping);
    if (request.mapping.entries.length !== 1) {
      throw new ProviderError('RestoreRejected', `a ${this.tool.backupNoun} restores exactly one namespace`);
    }
    const { source, sandbox } = request.mapping.entries[0]!;
    if (!request.backup.includedNamespaces.includes(source)) {
      throw new ProviderError(
        'RestoreRejected',
        `${this.tool.backupNoun} ${request.backup.name} is not of namespace ${source}`,
      );
    }
    const body = this.tool.restoreBody({
      name: request.name,
      labels: request.labels,
      backup: request.backup.name,
      source,
      sandbox,
    });
    const { created, object } = await this.tool.restores.create(sandbox, body);
    if (!created && !this.tool.sameRequest(object, body)) {
      throw new ProviderError(
        'RestoreRejected',
        `a restore named ${sandbox}/${request.name} already exists with another backup or target; Rehearsal will not adopt it`,
      );
    }
    return { namespace: sandbox, name: request.name };
  }

  async getRestoreProgress(ref: RestoreRef): Promise<RestoreProgress> {
    const restore = await this.tool.restores.get(ref.namespace, ref.name);
    if (!restore)
      throw new ProviderError('RestoreNotFound', `restore ${ref.namespace}/${ref.name} not found`);
    return this.tool.progress(restore);
  }

  async deleteRestore(ref: RestoreRef): Promise<void> {
    await this.tool.restores.delete(ref.namespace, ref.name);
  }
}
