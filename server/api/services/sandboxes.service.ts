// Administrators' view of sandbox namespaces (issue 26): list them with what the server makes of
// each, and remove an orphan (its test deleted) without waiting for its expiry. The refusals
// become problems here: the port answers with outcomes, never with HTTP.
import type { SandboxInfo } from '../dto.js';
import type { SandboxAdmin } from '../ports.js';
import { ProblemError } from '../problem.js';

export class SandboxesService {
  constructor(private readonly admin: SandboxAdmin | undefined) {}

  async list(orphanedOnly: boolean): Promise<SandboxInfo[]> {
    const sandboxes = await this.port().list();
    return orphanedOnly ? sandboxes.filter((sandbox) => sandbox.orphaned) : sandboxes;
  }

  async removeOrphan(name: string, uid: string | undefined): Promise<void> {
    const removal = await this.port().removeOrphan(name, uid);
    switch (removal.outcome) {
      case 'removed':
        return;
      case 'not-found':
        throw new ProblemError('not-found', removal.message);
      case 'not-orphaned':
      case 'uid-mismatch':
        throw new ProblemError('conflict', removal.message);
    }
  }

  private port(): SandboxAdmin {
    if (!this.admin) throw new ProblemError('kubernetes-unavailable', 'This server has no access to sandbox namespaces.');
    return this.admin;
  }
}
