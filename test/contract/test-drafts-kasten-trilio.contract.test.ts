// GET/POST /api/v1/test-drafts and GET /api/v1/coverage on a server whose backup tool is Kasten or
// Trilio (REHEARSAL_BACKUP_TOOL, issue 32), through the generated client and checked against
// openapi.json. The inventory is read as the server reads it: the real KastenProvider /
// TrilioProvider over a fake Kubernetes API holding real-shaped Policies, RestorePoints,
// BackupPlans and Backups, through inventoryReader and the CoverageTracker. The caller's review
// asks for the configured tool's lists, never Velero's.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CoreV1Api } from '@kubernetes/client-node';
import { createRehearsalClient, type ProblemDetails } from '../../openapi/client.js';
import type { AccessReviewer, ReviewedUser } from '../../server/api/auth/access-review.js';
import type { PermissionDescriptor } from '../../server/api/problem.js';
import { inventoryReader } from '../../server/inventory/backup-inventory.js';
import type { ProviderCustomObjectsApi } from '../../server/providers/custom-resources.js';
import { KastenProvider } from '../../server/providers/kasten/kasten.provider.js';
import type { BackupProvider } from '../../server/providers/provider.js';
import { TrilioProvider } from '../../server/providers/trilio/trilio.provider.js';
import { ContractValidator, loadDocument } from './support/contract.js';
import { startTestServer, type TestServer } from './support/server.js';

const contract = new ContractValidator(loadDocument());

/** The cluster-wide lists a provider's inventory makes, answered from `objects` by plural. */
function clusterObjects(objects: Record<string, unknown[]>): ProviderCustomObjectsApi {
  return {
    listClusterCustomObject: async ({ plural }: { plural: string }) => ({ items: objects[plural] ?? [] }),
  } as unknown as ProviderCustomObjectsApi;
}

const NAMESPACES = ['shop', 'ledger', 'loose', 'rehearsal-system', 'kube-system'];
const core = {
  listNamespace: async () => ({ items: NAMESPACES.map((name) => ({ metadata: { name } })) }),
} as unknown as Pick<CoreV1Api, 'listNamespace'>;

function readerOf(provider: BackupProvider) {
  return inventoryReader({ provider, core, excludedNamespaces: ['rehearsal-system'] })!;
}

const appNamespace = (name: string) => ({
  matchExpressions: [{ key: 'k10.kasten.io/appNamespace', operator: 'In', values: [name] }],
});

/** As docs.kasten.io writes them: Policies in kasten-io, RestorePoints in the application namespaces. */
const KASTEN = {
  policies: [
    {
      apiVersion: 'config.kio.kasten.io/v1alpha1',
      kind: 'Policy',
      metadata: { name: 'shop-daily', namespace: 'kasten-io' },
      spec: {
        frequency: '@daily',
        subFrequency: { minutes: [30], hours: [2] },
        retention: { daily: 7 },
        actions: [{ action: 'backup' }, { action: 'export', exportParameters: { profile: { name: 'minio', namespace: 'kasten-io' } } }],
        selector: appNamespace('shop'),
      },
    },
    {
      apiVersion: 'config.kio.kasten.io/v1alpha1',
      kind: 'Policy',
      metadata: { name: 'ledger-manual', namespace: 'kasten-io' },
      spec: { frequency: '@onDemand', actions: [{ action: 'backup' }], selector: { matchLabels: { 'k10.kasten.io/appNamespace': 'ledger' } } },
    },
  ],
  restorepoints: [
    { apiVersion: 'apps.kio.kasten.io/v1alpha1', kind: 'RestorePoint', metadata: { name: 'shop-rp-1', namespace: 'shop' }, status: { actionTime: '2026-03-15T02:30:00Z' } },
    { apiVersion: 'apps.kio.kasten.io/v1alpha1', kind: 'RestorePoint', metadata: { name: 'loose-rp-1', namespace: 'loose' }, status: { actionTime: '2026-03-14T09:00:00Z' } },
  ],
};

/** As TVK's CRDs shape them: a BackupPlan per namespace naming a schedule Policy; Backups beside it. */
const TRILIO = {
  backupplans: [
    {
      apiVersion: 'triliovault.trilio.io/v1',
      kind: 'BackupPlan',
      metadata: { name: 'shop-plan', namespace: 'shop' },
      spec: {
        backupConfig: {
          target: { name: 'minio-target', namespace: 'trilio-system' },
          schedulePolicy: { fullBackupPolicy: { name: 'weekly-full', namespace: 'trilio-system' }, incrementalBackupPolicy: { name: 'nightly-incremental', namespace: 'trilio-system' } },
        },
      },
    },
    { apiVersion: 'triliovault.trilio.io/v1', kind: 'BackupPlan', metadata: { name: 'ledger-plan', namespace: 'ledger' }, spec: { backupConfig: { target: { name: 'minio-target' } } } },
  ],
  policies: [
    { apiVersion: 'triliovault.trilio.io/v1', kind: 'Policy', metadata: { name: 'weekly-full', namespace: 'trilio-system' }, spec: { type: 'Schedule', scheduleConfig: { schedule: ['0 3 * * 0'] } } },
    { apiVersion: 'triliovault.trilio.io/v1', kind: 'Policy', metadata: { name: 'nightly-incremental', namespace: 'trilio-system' }, spec: { type: 'Schedule', scheduleConfig: { schedule: ['15 1 * * *'] } } },
  ],
  backups: [
    { apiVersion: 'triliovault.trilio.io/v1', kind: 'Backup', metadata: { name: 'shop-b1', namespace: 'shop' }, spec: { type: 'Full', backupPlan: { name: 'shop-plan', namespace: 'shop' } }, status: { status: 'Available', completionTimestamp: '2026-03-15T01:40:00Z' } },
    { apiVersion: 'triliovault.trilio.io/v1', kind: 'Backup', metadata: { name: 'loose-b1', namespace: 'loose' }, status: { status: 'Failed' } },
  ],
};

function expectProblem(error: unknown, status: number, slug: string): ProblemDetails {
  const problem = error as ProblemDetails;
  expect(problem).toMatchObject({ status, type: `https://rehearsal.dev/problems/${slug}` });
  return problem;
}

describe('a Kasten server', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ contract, backupTool: 'kasten', readInventory: readerOf(new KastenProvider(clusterObjects(KASTEN))) });
  });
  afterAll(async () => {
    await server.close();
  });

  it('drafts kasten tests from the Policies: an hour after a daily Policy, the default for @onDemand and for RestorePoints alone', async () => {
    const { data, response } = await server.api.GET('/api/v1/test-drafts');
    expect(response.status).toBe(200);
    expect(data!.drafts.map((draft) => draft.namespace).sort()).toEqual(['ledger', 'loose', 'shop']);
    const byNamespace = new Map(data!.drafts.map((draft) => [draft.namespace, draft]));
    const shop = byNamespace.get('shop')!;
    expect(shop.test.spec).toMatchObject({
      provider: 'kasten',
      backupSource: { backupName: 'latest', namespaces: [{ name: 'shop' }] },
      schedule: { cron: '30 3 * * *', timezone: 'UTC' },
    });
    expect(shop.test.metadata.annotations['rehearsal.dev/generated-from']).toBe('kasten Policy/kasten-io/shop-daily');
    expect(shop.notes[0]).toContain('backed up by kasten Policy kasten-io/shop-daily (30 2 * * *)');

    const ledger = byNamespace.get('ledger')!;
    expect(ledger.test.spec.schedule.cron).toBe('0 4 * * *');
    expect(ledger.notes[0]).toContain('runs on demand only (@onDemand)');
    const loose = byNamespace.get('loose')!;
    expect(loose.test.spec).toMatchObject({ provider: 'kasten', schedule: { cron: '0 4 * * *' } });
    expect(loose.test.metadata.annotations['rehearsal.dev/generated-from']).toBe('kasten RestorePoint/loose-rp-1');
  });

  it('creates the drafted kasten test; coverage names the Policy and the RestorePoints', async () => {
    const created = await server.api.POST('/api/v1/test-drafts/{sourceNamespace}', { params: { path: { sourceNamespace: 'shop' } } });
    expect(created.response.status).toBe(201);
    expect(server.cluster.getTest('rehearsal-system', 'shop-restore')!.spec).toMatchObject({ provider: 'kasten', schedule: { cron: '30 3 * * *' } });
    const coverage = (await server.api.GET('/api/v1/coverage')).data!;
    expect(coverage.namespaces.find((entry) => entry.namespace === 'shop')).toMatchObject({
      backedUpBy: ['Policy/kasten-io/shop-daily', 'RestorePoint/shop-rp-1'],
      tests: ['rehearsal-system/shop-restore'],
      window: '24h',
    });
  });
});

describe('a Trilio server', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ contract, backupTool: 'trilio', readInventory: readerOf(new TrilioProvider(clusterObjects(TRILIO))) });
  });
  afterAll(async () => {
    await server.close();
  });

  it('drafts trilio tests from the BackupPlans: the most frequent schedule Policy, an hour later; a plan without one, the default and why', async () => {
    const { data } = await server.api.GET('/api/v1/test-drafts', { params: { query: { yaml: true } } });
    // loose has only a Failed Backup: not backed up.
    expect(data!.drafts.map((draft) => draft.namespace).sort()).toEqual(['ledger', 'shop']);
    const shop = data!.drafts.find((draft) => draft.namespace === 'shop')!;
    expect(shop.test.spec).toMatchObject({ provider: 'trilio', backupSource: { backupName: 'latest', namespaces: [{ name: 'shop' }] }, schedule: { cron: '15 2 * * *' } });
    expect(shop.test.metadata.annotations['rehearsal.dev/generated-from']).toBe('trilio BackupPlan/shop-plan');
    expect(shop.yaml).toMatch(/^# backed up by trilio BackupPlan shop-plan \(15 1 \* \* \*\)/);
    expect(shop.yaml).toContain('Rehearsal reads them as UTC');
    const ledger = data!.drafts.find((draft) => draft.namespace === 'ledger')!;
    expect(ledger.test.spec.schedule.cron).toBe('0 4 * * *');
    expect(ledger.notes[0]).toContain('names no schedule Policy (backups on demand only)');
    const { data: skipped } = await server.api.GET('/api/v1/test-drafts', { params: { query: { sourceNamespace: ['loose'] } } });
    expect(skipped!.skipped).toEqual([{ namespace: 'loose', reason: 'not-backed-up', message: expect.any(String) }]);
  });
});

describe('who may draft on a Kasten or Trilio server', () => {
  // alice may do everything; erin may not list Kasten's Policies; frank may not list Trilio's BackupPlans.
  class Reviewer implements AccessReviewer {
    readonly reviews: { user: string; permission: PermissionDescriptor }[] = [];
    async reviewToken(token: string): Promise<ReviewedUser | null> {
      return ['alice', 'erin', 'frank'].includes(token) ? { username: token, groups: [] } : null;
    }
    async reviewAccess(user: ReviewedUser, permission: PermissionDescriptor): Promise<{ allowed: boolean }> {
      this.reviews.push({ user: user.username, permission });
      if (user.username === 'erin') return { allowed: !(permission.group === 'config.kio.kasten.io' && permission.resource === 'policies') };
      if (user.username === 'frank') return { allowed: permission.resource !== 'backupplans' };
      return { allowed: true };
    }
  }

  it.each([
    ['kasten', 'erin', { verb: 'list', group: 'config.kio.kasten.io', resource: 'policies' }, ['restorepoints.apps.kio.kasten.io']],
    ['trilio', 'frank', { verb: 'list', group: 'triliovault.trilio.io', resource: 'backupplans' }, ['policies.triliovault.trilio.io', 'backups.triliovault.trilio.io']],
  ] as const)('%s: the tool’s own lists are reviewed cluster-wide (403 naming the missing one), Velero’s never', async (tool, denied, missing, alsoAsked) => {
    const reviewer = new Reviewer();
    const objects = tool === 'kasten' ? KASTEN : TRILIO;
    const provider = tool === 'kasten' ? new KastenProvider(clusterObjects(objects)) : new TrilioProvider(clusterObjects(objects));
    const secured = await startTestServer({ contract, authMode: 'kubernetes', reviewer, backupTool: tool, readInventory: readerOf(provider) });
    try {
      const as = (token: string) => createRehearsalClient({ baseUrl: secured.baseUrl, fetch: contract.fetch(), token });
      const forAlice = await as('alice').GET('/api/v1/test-drafts', { params: { query: { sourceNamespace: ['shop'] } } });
      expect(forAlice.data!.drafts.map((draft) => draft.test.spec.provider)).toEqual([tool]);
      const asked = reviewer.reviews.filter((review) => review.user === 'alice').map((review) => review.permission);
      for (const resource of alsoAsked) {
        const [plural, ...group] = resource.split('.');
        expect(asked).toContainEqual({ verb: 'list', group: group.join('.'), resource: plural });
      }
      expect(asked.filter((permission) => permission.group === 'velero.io')).toEqual([]);

      const forbidden = await as(denied).GET('/api/v1/test-drafts');
      expect(expectProblem(forbidden.error, 403, 'forbidden').missingPermissions).toEqual([missing]);
      const applying = await as(denied).POST('/api/v1/test-drafts/{sourceNamespace}', { params: { path: { sourceNamespace: 'shop' } } });
      expect(expectProblem(applying.error, 403, 'forbidden').missingPermissions).toEqual([missing]);
      expect(secured.cluster.getTest('rehearsal-system', 'shop-restore')).toBeUndefined();
    } finally {
      await secured.close();
    }
  });
});
