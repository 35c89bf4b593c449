// Namespaces in memory, as much of CoreV1Api as the sandbox inventory and the orphan removal use
// (list by label, read, delete with a UID precondition), so the contract tests run the server's
// real SandboxAdmin (server/app/sandbox-admin.ts) over the fake cluster's tests and reports.
import type { V1Namespace } from '@kubernetes/client-node';
import { sandboxAdmin } from '../../../server/app/sandbox-admin.js';
import { SandboxInventory } from '../../../server/engine/sandbox/sandbox-inventory.js';
import type { SandboxAdmin } from '../../../server/api/ports.js';
import { KubeError } from '../../../server/kube/errors.js';
import type { FakeCluster } from './fake-cluster.js';
import { writerOf } from './fake-cluster.js';

export class FakeNamespaces {
  readonly items = new Map<string, V1Namespace>();
  readonly deleted: { name: string; uid?: string }[] = [];
  private next = 1;

  add(name: string, labels: Record<string, string>, annotations: Record<string, string> = {}): V1Namespace {
    const namespace: V1Namespace = {
      metadata: { name, uid: `00000000-0000-4000-8000-${String(this.next++).padStart(12, '0')}`, labels, annotations, creationTimestamp: new Date('2026-03-15T10:00:00Z') },
    };
    this.items.set(name, namespace);
    return namespace;
  }

  readonly core = {
    listNamespace: async ({ labelSelector }: { labelSelector?: string }) => {
      const [key, value] = (labelSelector ?? '').split('=');
      return { items: [...this.items.values()].filter((namespace) => !key || namespace.metadata?.labels?.[key] === value) };
    },
    readNamespace: async ({ name }: { name: string }) => {
      const namespace = this.items.get(name);
      if (!namespace) throw new KubeError('NotFound', 404, `namespaces "${name}" not found`);
      return namespace;
    },
    deleteNamespace: async ({ name, body }: { name: string; body?: { preconditions?: { uid?: string } } }) => {
      const namespace = this.items.get(name);
      if (!namespace) throw new KubeError('NotFound', 404, `namespaces "${name}" not found`);
      const uid = body?.preconditions?.uid;
      if (uid && uid !== namespace.metadata?.uid) throw new KubeError('Conflict', 409, 'Precondition failed: UID in precondition');
      this.items.delete(name);
      this.deleted.push({ name, ...(uid ? { uid } : {}) });
      return {};
    },
  };
}

/** The server's real SandboxAdmin over the fakes. */
export function sandboxAdminOver(cluster: FakeCluster, namespaces: FakeNamespaces, now: () => Date): SandboxAdmin {
  const writer = writerOf(cluster);
  const client = {
    getTest: writer.getTest,
    getReport: async (namespace: string, name: string) => {
      const report = cluster.fullReport(`${namespace}/${name}`);
      if (!report) throw new KubeError('NotFound', 404, `restorereports.rehearsal.dev "${name}" not found`);
      return report;
    },
  };
  return sandboxAdmin({
    inventory: new SandboxInventory({ core: namespaces.core as never, cache: cluster, client, now }),
    core: namespaces.core as never,
  });
}
