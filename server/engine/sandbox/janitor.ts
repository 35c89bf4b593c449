// Removes sandboxes nobody needs any more, also after restarts (it needs no memory of earlier
// processes): a finished run's sandboxes kept for inspection, and the sandboxes of deleted tests,
// each once past its expiry. The inventory gathers, sandbox-verdict.ts decides (decision 0009:
// labels, name and a record agree; for a deleted test the reserved label is the record), and this
// acts: the delete carries the UID read with the facts, so a namespace re-created under the same
// name in between is not deleted. A namespace it keeps for good (unrecognised, unrecorded) is
// logged once. Then the PVs and snapshot contents of sandboxes already gone (issue 27,
// sandbox-volumes.ts): recorded when their sandbox was deleted, removed once it is gone.
import type { Logger } from 'pino';
import type { SandboxInventory } from './sandbox-inventory.js';
import type { SandboxManager } from './sandbox.js';
import type { SandboxVolumes, VolumeSweepResult } from './sandbox-volumes.js';

export interface JanitorDeps {
  inventory: Pick<SandboxInventory, 'list'>;
  sandboxes: Pick<SandboxManager, 'delete'>;
  /** The cluster-scoped volumes of deleted sandboxes; absent: not looked after. */
  volumes?: Pick<SandboxVolumes, 'sweep'>;
  log: Logger;
}

export interface SweepResult {
  deleted: string[];
  kept: string[];
  /** PVs and snapshot contents (kind/name), with `volumes` (empty when that sweep failed). */
  volumes?: VolumeSweepResult;
}

export class Janitor {
  /** Namespaces already reported as never deleted: a warning once, not at every sweep. */
  private readonly warned = new Set<string>();

  constructor(private readonly deps: JanitorDeps) {}

  async sweep(): Promise<SweepResult> {
    const result: SweepResult = { deleted: [], kept: [] };
    for (const { facts, uid, verdict } of await this.deps.inventory.list()) {
      const name = facts.name;
      if (verdict.action === 'keep') {
        if ((verdict.reason === 'unrecognised' || verdict.reason === 'unrecorded') && !this.warned.has(name)) {
          this.warned.add(name);
          this.deps.log.warn({ sandbox: name, reason: verdict.message }, 'not deleting a namespace no record vouches for');
        }
        result.kept.push(name);
        continue;
      }
      try {
        await this.deps.sandboxes.delete(name, uid);
        result.deleted.push(name);
        this.deps.log.info({ sandbox: name, reason: verdict.reason, message: verdict.message }, 'removed sandbox');
      } catch (error) {
        this.deps.log.warn({ err: error, sandbox: name }, 'could not remove sandbox');
      }
    }
    if (this.deps.volumes) {
      result.volumes = { deleted: [], kept: [] };
      try {
        result.volumes = await this.deps.volumes.sweep();
      } catch (error) {
        this.deps.log.warn({ err: error }, 'could not sweep the volumes of deleted sandboxes');
      }
    }
    return result;
  }
}
