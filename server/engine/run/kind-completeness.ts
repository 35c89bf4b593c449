// Gathers completeness per kind for a finished restore: the tool's list of what the backup holds
// per kind and source namespace (only Velero keeps one), against what each sandbox holds now (the
// namespace mapping applied). Anything that goes wrong degrades to the tool's totals with a reason
// in the report, never a failed run: completeness is one level of the score, not the restore.
import { compareKinds, type ExpectedObjects, type PresentObjects } from '../../domain/run/completeness.js';
import type { RunObservations } from '../../domain/run/report-builder.js';
import type { CurrentRun, RestoreTest } from '../../domain/resources/resources.js';
import type { BackupProvider } from '../../providers/provider.js';

export interface KindLister {
  listNames(apiVersion: string, kind: string, namespace: string): Promise<string[]>;
}

/** The reason text in a report stays short (reports live in etcd). */
const MAX_REASON = 160;

function shortReason(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > MAX_REASON ? `${text.slice(0, MAX_REASON - 1)}…` : text;
}

export async function observeKinds(
  provider: BackupProvider,
  reader: KindLister,
  test: RestoreTest,
  run: CurrentRun,
): Promise<RunObservations['kinds']> {
  if (!provider.backedUpObjects || !run.backup?.name) return undefined;
  const sandboxOf = new Map((run.sandboxNamespaces ?? []).map((entry) => [entry.source, entry.sandbox]));
  try {
    const backedUp = await provider.backedUpObjects(
      run.backup.name,
      [...sandboxOf.keys()],
      test.spec.backupSource.providerNamespace,
    );
    const expected: ExpectedObjects[] = backedUp.flatMap((entry) => {
      const sandbox = sandboxOf.get(entry.sourceNamespace);
      return sandbox ? [{ apiVersion: entry.apiVersion, kind: entry.kind, sandbox, names: entry.names }] : [];
    });
    const present: PresentObjects[] = [];
    for (const entry of expected) {
      // Sequential on purpose: a handful of kinds per sandbox, and the apiserver is shared.
      const names = await reader.listNames(entry.apiVersion, entry.kind, entry.sandbox);
      present.push({ apiVersion: entry.apiVersion, kind: entry.kind, sandbox: entry.sandbox, names });
    }
    return { completeness: compareKinds(expected, present) };
  } catch (error) {
    return { unavailable: shortReason(error) };
  }
}
