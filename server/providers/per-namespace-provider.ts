// The provider shape shared by tools that keep their backups in the application's own namespace and
// restore one application per restore object into a target namespace: Kasten (RestorePoint →
// RestoreAction with targetNamespace) and Trilio (Backup → Restore, which restores into the
// namespace it is created in). Each tool supplies the translations (PerNamespaceTool); the rules
// live here once:
// - one restore object per source namespace (the tools restore one application per request), each
//   in its own sandbox, all with the run's name; the run tracks them together (RestoreRef.namespaces)
//   and the restore is done when every one is, failed when any one failed;
// - "latest"/"" = the newest usable backup in each source namespace; a named backup must exist, and
//   be usable, in every source namespace. The chosen names are recorded in source order, joined by
//   commas (a name never holds one), as the run's one backup name;
// - each restore object is created IN ITS SANDBOX (the target), never in a source namespace, and
//   its target (Kasten's targetNamespace; Trilio's own namespace) is the sandbox of the checked
//   mapping; an existing object of the same name is adopted only when it asks for exactly the
//   same thing;
// - each carries the run's restore transforms in the tool's own terms (kasten-transforms.ts,
//   trilio-transforms.ts).
import type { Provider } from '../domain/resources/resources.js';
import type { CustomResources } from './custom-resources.js';
import {
  assertNamespaceMapping,
  ProviderError,
  type BackupInfo,
  type BackupProvider,
  type RestoreProgress,
  type RestoreRef,
  type RestoreRequest,
  type RestoreState,
} from './provider.js';
import { isLatest } from './velero/backup-selection.js';
import type { RestoreTransforms } from '../domain/run/restore-transforms.js';
import type { RestoreSubset } from '../domain/run/restore-subset.js';
import { orderVolumes } from '../domain/run/volume-data.js';

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
    transforms: RestoreTransforms;
    /** Only this part of the backup (issue 32); the tool throws RestoreRejected if it cannot say it exactly. */
    subset?: RestoreSubset;
  }): R & {
    metadata: { name: string };
  };
  /** Whether an existing restore object asks for the same backup, source, target, transforms and subset. */
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
    if (sourceNamespaces.length === 0) throw new ProviderError('BackupNotFound', 'the test names no source namespace');
    const chosen = await Promise.all(sourceNamespaces.map((source) => this.chooseIn(source, backupName)));
    const name = chosen.map((backup) => backup.metadata.name).join(BACKUP_NAME_SEPARATOR);
    if (name.length > MAX_RECORDED_NAME_LENGTH) {
      throw new ProviderError(
        'BackupNotFound',
        `the ${this.tool.backupNoun}s chosen for ${sourceNamespaces.length} namespaces have names too long to record together ` +
          `(${name.length} of ${MAX_RECORDED_NAME_LENGTH} characters); split the test`,
      );
    }
    const info: BackupInfo = { name, includedNamespaces: [...sourceNamespaces] };
    // The oldest completion: the backup age of a multi-namespace restore is that of its oldest part.
    const completions = chosen.map((backup) => this.tool.completedAt(backup));
    if (completions.every((value) => value !== undefined)) {
      info.completedAt = completions.reduce((oldest, value) => (time(value) < time(oldest) ? value : oldest));
    }
    const totals = chosen.map((backup) => this.tool.totalItems?.(backup));
    if (totals.every((value) => value !== undefined)) info.totalItems = totals.reduce((sum, value) => sum + value, 0);
    return info;
  }

  /**
   * Issue 32: a randomWithin draw needs one backup for every source, and these tools keep one per
   * namespace, so only a test of one source namespace can sample; with several it is refused here
   * and the run fails BackupNotFound with this message (the test should use latest or be split).
   */
  async listRestorableBackups(sourceNamespaces: readonly string[]): Promise<BackupInfo[]> {
    if (sourceNamespaces.length !== 1) {
      throw new ProviderError(
        'BackupNotFound',
        `${this.tool.provider} keeps one ${this.tool.backupNoun} per namespace, so randomWithin needs exactly one source namespace ` +
          `(this test has ${sourceNamespaces.length}); use latest or split the test`,
      );
    }
    const source = sourceNamespaces[0] as string;
    return (await this.usableIn(source)).map((backup) => {
      const info: BackupInfo = { name: backup.metadata.name, includedNamespaces: [source] };
      const completedAt = this.tool.completedAt(backup);
      if (completedAt) info.completedAt = completedAt;
      const total = this.tool.totalItems?.(backup);
      if (total !== undefined) info.totalItems = total;
      return info;
    });
  }

  private async usableIn(source: string): Promise<B[]> {
    return (await this.tool.backups.list(source)).filter((backup) => this.tool.unusable(backup) === undefined);
  }

  private async chooseIn(source: string, backupName: string): Promise<B> {
    const noun = this.tool.backupNoun;
    if (isLatest(backupName)) {
      const candidates = (await this.usableIn(source))
        .sort(
          (left, right) =>
            time(this.tool.completedAt(right) ?? right.metadata.creationTimestamp) -
              time(this.tool.completedAt(left) ?? left.metadata.creationTimestamp) ||
            (right.metadata.name < left.metadata.name ? -1 : 1),
        );
      const newest = candidates[0];
      if (!newest) throw new ProviderError('BackupNotFound', `no usable ${noun} in namespace ${source}`);
      return newest;
    }
    const named = await this.tool.backups.get(source, backupName);
    if (!named) throw new ProviderError('BackupNotFound', `${noun} ${backupName} not found in namespace ${source}`);
    const why = this.tool.unusable(named);
    if (why) throw new ProviderError('BackupNotFound', `${noun} ${backupName} in namespace ${source} ${why}`);
    return named;
  }

  async startRestore(request: RestoreRequest): Promise<RestoreRef> {
    assertNamespaceMapping(request.mapping);
    const names = request.backup.name.split(BACKUP_NAME_SEPARATOR);
    const included = request.backup.includedNamespaces;
    if (names.length !== included.length) {
      throw new ProviderError('RestoreRejected', `backup record ${request.backup.name} does not name one ${this.tool.backupNoun} per namespace`);
    }
    const sandboxes: string[] = [];
    for (const { source, sandbox } of request.mapping.entries) {
      const index = included.indexOf(source);
      if (index < 0) {
        throw new ProviderError('RestoreRejected', `${this.tool.backupNoun} ${request.backup.name} is not of namespace ${source}`);
      }
      const body = this.tool.restoreBody({
        name: request.name,
        labels: request.labels,
        backup: names[index]!,
        source,
        sandbox,
        transforms: request.transforms,
        ...(request.subset ? { subset: request.subset } : {}),
      });
      const { created, object } = await this.tool.restores.create(sandbox, body);
      if (!created && !this.tool.sameRequest(object, body)) {
        throw new ProviderError(
          'RestoreRejected',
          `a restore named ${sandbox}/${request.name} already exists with another backup or target; Rehearsal will not adopt it`,
        );
      }
      sandboxes.push(sandbox);
    }
    const ref: RestoreRef = { namespace: sandboxes[0]!, name: request.name };
    if (sandboxes.length > 1) ref.namespaces = sandboxes;
    return ref;
  }

  async getRestoreProgress(ref: RestoreRef): Promise<RestoreProgress> {
    const parts = await Promise.all(
      namespacesOf(ref).map(async (namespace) => {
        const restore = await this.tool.restores.get(namespace, ref.name);
        if (!restore) throw new ProviderError('RestoreNotFound', `restore ${namespace}/${ref.name} not found`);
        return { namespace, progress: this.tool.progress(restore) };
      }),
    );
    return combineProgress(parts);
  }

  async deleteRestore(ref: RestoreRef): Promise<void> {
    for (const namespace of namespacesOf(ref)) await this.tool.restores.delete(namespace, ref.name);
  }
}

/** Kubernetes object names never hold a comma. */
const BACKUP_NAME_SEPARATOR = ',';
/** The CRDs' maxLength of a recorded backup name (status.currentRun.backup.name, report spec.backup.name). */
const MAX_RECORDED_NAME_LENGTH = 253;

function namespacesOf(ref: RestoreRef): string[] {
  return ref.namespaces?.length ? ref.namespaces : [ref.namespace];
}

const STATE_RANK: Readonly<Record<RestoreState, number>> = {
  failed: 0,
  pending: 1,
  running: 2,
  partiallyFailed: 3,
  succeeded: 4,
};

/**
 * One progress for the run from one per namespace: the least advanced state wins (a failure
 * anywhere fails the restore; it is done only when every part is), counts add up, a count any
 * part does not give is not given at all (a partial sum would read as a loss), and the volumes
 * of every part are listed together.
 */
export function combineProgress(parts: readonly { namespace: string; progress: RestoreProgress }[]): RestoreProgress {
  if (parts.length === 1) return parts[0]!.progress;
  const ordered = [...parts].sort((left, right) => STATE_RANK[left.progress.state] - STATE_RANK[right.progress.state]);
  const worst = ordered[0]!.progress;
  // Nothing is pending once any part runs: the restore as a whole is under way.
  const state: RestoreState =
    worst.state === 'pending' && parts.some((part) => part.progress.state !== 'pending') ? 'running' : worst.state;
  const sum = (pick: (progress: RestoreProgress) => number | undefined): number | undefined => {
    const values = parts.map((part) => pick(part.progress));
    return values.every((value) => value !== undefined) ? values.reduce((total, value) => total + value, 0) : undefined;
  };
  const combined: RestoreProgress = {
    state,
    phase: worst.phase,
    warnings: sum((progress) => progress.warnings) ?? 0,
    errors: sum((progress) => progress.errors) ?? 0,
  };
  const items = sum((progress) => progress.itemsRestored);
  if (items !== undefined) combined.itemsRestored = items;
  const total = sum((progress) => progress.totalItems);
  if (total !== undefined) combined.totalItems = total;
  const messages = parts.flatMap((part) => (part.progress.message ? [`${part.namespace}: ${part.progress.message}`] : []));
  if (messages.length) combined.message = messages.join('; ');
  // Every part's volumes (each in its own sandbox), failed ones first, within the report's bound.
  const volumes = parts.flatMap((part) => part.progress.volumes ?? []);
  if (volumes.length > 0) combined.volumes = orderVolumes(volumes);
  const ends = parts.map((part) => part.progress.completedAt);
  if (state !== 'pending' && state !== 'running' && ends.every((end) => end !== undefined)) {
    combined.completedAt = ends.reduce((latest, end) => (time(end) > time(latest) ? end : latest));
  }
  return combined;
}
