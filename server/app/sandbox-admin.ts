// The API's SandboxAdmin port over the engine's sandbox inventory: the administrators' list and
// orphan removal judge each namespace exactly as the janitor does (one gatherer, one pure verdict),
// on any replica, leader or not. Removal re-reads the one namespace at request time, so a list shown
// minutes ago decides nothing, and deletes with the UID it just read (plus the caller's, if given).
import type { CoreV1Api } from '@kubernetes/client-node';
import type { SandboxInfo } from '../api/dto.js';
import type { OrphanRemoval, SandboxAdmin } from '../api/ports.js';
import { LABEL_MANAGED_BY, MANAGED_BY_VALUE } from '../domain/resources/resources.js';
import { sandboxExpiry, sandboxLabelsOf } from '../domain/run/sandbox-verdict.js';
import { deleteSandbox, type SandboxVolumeRecorder } from '../engine/sandbox/sandbox-delete.js';
import type { JudgedSandbox, SandboxInventory } from '../engine/sandbox/sandbox-inventory.js';

export interface SandboxAdminDeps {
  inventory: Pick<SandboxInventory, 'list' | 'find'>;
  core: Pick<CoreV1Api, 'readNamespace' | 'deleteNamespace'>;
  /** Records the orphan's PVs and snapshot contents before it goes (the leader's janitor removes them). */
  volumes?: SandboxVolumeRecorder;
}

export function sandboxAdmin({ inventory, core, volumes }: SandboxAdminDeps): SandboxAdmin {
  return {
    async list() {
      const sandboxes = (await inventory.list()).map(infoOf);
      return sandboxes.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },
    async removeOrphan(name, uid): Promise<OrphanRemoval> {
      const found = await inventory.find(name);
      if (!found || found.facts.labels[LABEL_MANAGED_BY] !== MANAGED_BY_VALUE) {
        return { outcome: 'not-found', message: `no sandbox namespace "${name}"` };
      }
      if (uid !== undefined && uid !== found.uid) {
        return { outcome: 'uid-mismatch', message: `namespace "${name}" has uid ${found.uid}, not ${uid}: nothing was removed` };
      }
      if (found.verdict.reason !== 'orphaned') {
        return { outcome: 'not-orphaned', message: `namespace "${name}" is not an orphaned sandbox (${found.verdict.reason}: ${found.verdict.message})` };
      }
      // A namespace re-created since the read fails the UID precondition: 409 from the apiserver.
      await deleteSandbox(core, name, found.uid, volumes);
      return { outcome: 'removed' };
    },
  };
}

function infoOf({ facts, uid, createdAt, verdict }: JudgedSandbox): SandboxInfo {
  const expiry = sandboxExpiry(facts.annotations);
  return {
    name: facts.name,
    uid,
    ...sandboxLabelsOf(facts.labels),
    state: verdict.reason,
    orphaned: verdict.reason === 'orphaned',
    ...(createdAt ? { createdAt } : {}),
    ...(expiry ? { expiresAt: expiry.toISOString() } : {}),
    message: verdict.message,
  };
}
