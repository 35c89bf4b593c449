// Upgrading a RestoreTest's status from the writers before server-side apply. Those replaced the
// whole status ("rehearsal", an Update) or merge-patched the evidence anchor ("rehearsal-evidence",
// an Update); the apiserver keeps their managedFields entries, so after an upgrade such an entry
// co-owns every field it last wrote. Server-side apply removes a field its owner leaves out only
// when no other manager owns it: the old entry would keep a finished run's currentRun forever (and
// a currentRun missing the parts its new owner removed fails validation).
//
// The fix is the one client-go's csaupgrade package applies: rewrite managedFields so that each
// field the old entry owned belongs to its owner's Apply entry, and drop the old entry. Writing
// metadata.managedFields through the main resource is how the API lets a client do this.
import { API_VERSION } from '../domain/resources/resources.js';

/** A metadata.managedFields entry, as the apiserver returns it. */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: FieldSet;
  subresource?: string;
}

/** FieldsV1: "f:<field>", "k:<key of a map-list item>" and "." (the node itself), nested. */
type FieldSet = { [key: string]: FieldSet };

/** Where each status field goes now: the field manager of its owner (undefined: nobody's). */
export interface StatusOwnership {
  field(name: string): string | undefined;
  condition(type: string): string | undefined;
}

/** The pre-server-side-apply writers of status. */
export const LEGACY_STATUS_MANAGERS: readonly string[] = ['rehearsal', 'rehearsal-evidence'];

function isLegacy(entry: ManagedFieldsEntry): boolean {
  return entry.operation === 'Update' && entry.subresource === 'status' && LEGACY_STATUS_MANAGERS.includes(entry.manager ?? '');
}

function union(into: FieldSet, from: FieldSet): FieldSet {
  for (const [key, value] of Object.entries(from)) into[key] = union(into[key] ?? {}, value);
  return into;
}

/** The type of a status.conditions item key, k:{"type":"Ready"}. */
function conditionType(item: string): string | undefined {
  if (!item.startsWith('k:')) return undefined;
  try {
    const key = JSON.parse(item.slice(2)) as { type?: unknown };
    return typeof key.type === 'string' ? key.type : undefined;
  } catch {
    return undefined;
  }
}

/**
 * managedFields with the legacy status entries' fields handed to their owners' Apply entries, or
 * undefined when there is no legacy entry (the usual case: nothing to write). A field the table
 * gives to nobody is left unowned.
 */
export function handOverLegacyStatus(
  managedFields: readonly ManagedFieldsEntry[] | undefined,
  now: Date,
  ownership: StatusOwnership,
): ManagedFieldsEntry[] | undefined {
  if (!managedFields?.some(isLegacy)) return undefined;
  const handed = new Map<string, FieldSet>();
  const give = (manager: string | undefined, fields: FieldSet): void => {
    if (manager) handed.set(manager, union(handed.get(manager) ?? {}, fields));
  };
  for (const entry of managedFields.filter(isLegacy)) {
    for (const [key, value] of Object.entries(entry.fieldsV1?.['f:status'] ?? {})) {
      if (key === 'f:conditions') {
        for (const [item, fields] of Object.entries(value)) {
          const type = conditionType(item);
          give(type && ownership.condition(type), { 'f:conditions': { [item]: fields } });
        }
      } else if (key.startsWith('f:')) {
        give(ownership.field(key.slice(2)), { [key]: value });
      }
    }
  }
  const kept = managedFields.filter((entry) => !isLegacy(entry)).map((entry) => ({ ...entry }));
  for (const [manager, fields] of handed) {
    const own = kept.find((entry) => entry.manager === manager && entry.operation === 'Apply' && entry.subresource === 'status');
    if (own) {
      own.fieldsV1 = { ...own.fieldsV1, 'f:status': union(structuredClone(own.fieldsV1?.['f:status'] ?? {}), fields) };
    } else {
      kept.push({
        manager,
        operation: 'Apply',
        apiVersion: API_VERSION,
        time: now.toISOString().replace(/\.\d+Z$/, 'Z'),
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:status': fields },
        subresource: 'status',
      });
    }
  }
  return kept;
}
