// The report cascade decides from the cache and confirms with the apiserver before it deletes: a
// cache that has not seen a new test yet, a report that still carries an ownerReference (the
// garbage collector's) and an unsynced cache never lose a report.
import { describe, expect, it } from '@jest/globals';
import pino from 'pino';
import { findOrphanReports, ReportCascade } from '../../../server/engine/report-cascade.js';
import type { RestoreReport, RestoreTest } from '../../../server/domain/resources/resources.js';
import { summarizeReport } from '../../../server/domain/read-models/report-summary.js';
import { KubeError } from '../../../server/kube/errors.js';
import { makeReport, makeRestoreTest, PERIOD_START } from '../../fixtures/evidence/reports.js';

const shape = { result: 'pass', rtoSeconds: 60 } as const;

function newForm(test: RestoreTest, index: number): RestoreReport {
  const { ownerReferences: _dropped, ...metadata } = makeReport(test, index, PERIOD_START, shape).metadata;
  return { ...makeReport(test, index, PERIOD_START, shape), metadata };
}

function world(cachedTests: RestoreTest[], serverTests: RestoreTest[], reports: RestoreReport[], synced = true) {
  const byKey = new Map(reports.map((r) => [`${r.metadata.namespace}/${r.metadata.name}`, r]));
  const deleted: string[] = [];
  const cache = {
    synced,
    getTest: (namespace: string, name: string) =>
      cachedTests.find((t) => t.metadata.namespace === namespace && t.metadata.name === name),
    liveReports: () => [...byKey].map(([key, report]) => ({ key, summary: summarizeReport(report) })),
    liveReport: (key: string) => byKey.get(key),
    onTestChange: () => undefined,
  };
  const client = {
    getTest: async (namespace: string, name: string) => {
      const test = serverTests.find((t) => t.metadata.namespace === namespace && t.metadata.name === name);
      if (!test) throw new KubeError('NotFound', 404, `restoretests ${name} not found`);
      return test;
    },
    deleteReport: async (namespace: string, name: string) => {
      deleted.push(`${namespace}/${name}`);
    },
  };
  return { cache, client, deleted };
}

const log = pino({ level: 'silent' });

describe('the report cascade', () => {
  const shop = makeRestoreTest('shop', ['shop'], { uid: 'uid-shop' });
  const ledger = makeRestoreTest('ledger', ['ledger'], { uid: 'uid-ledger' });

  it("deletes a deleted test's reports, and only those", async () => {
    const { cache, client, deleted } = world([ledger], [ledger], [newForm(shop, 0), newForm(shop, 1), newForm(ledger, 0)]);
    await new ReportCascade({ cache, client, log }).pass();
    expect(deleted.sort()).toEqual([newForm(shop, 0), newForm(shop, 1)].map((r) => `rehearsal-system/${r.metadata.name}`));
  });

  it('keeps the reports of a test the cache has not seen yet (the apiserver has it, same uid)', async () => {
    const { cache, client, deleted } = world([], [shop], [newForm(shop, 0)]);
    expect(await findOrphanReports({ cache, client })).toEqual([]);
    await new ReportCascade({ cache, client, log }).pass();
    expect(deleted).toEqual([]);
  });

  it("leaves reports with an ownerReference to the garbage collector, and does nothing before the cache synced", async () => {
    const old = world([], [], [makeReport(shop, 0, PERIOD_START, shape)]);
    await new ReportCascade({ cache: old.cache, client: old.client, log }).pass();
    expect(old.deleted).toEqual([]);
    const early = world([], [], [newForm(shop, 0)], false);
    await new ReportCascade({ cache: early.cache, client: early.client, log }).pass();
    expect(early.deleted).toEqual([]);
  });

  it('hands the orphans to the evidence archive when it is on, never deleting them itself', async () => {
    const { cache, client, deleted } = world([], [], [newForm(shop, 0)]);
    let retired = 0;
    const archive = { retireOrphans: async () => void (retired += 1) };
    await new ReportCascade({ cache, client, archive, log }).pass();
    expect(retired).toBe(1);
    expect(deleted).toEqual([]);
    const [group] = await findOrphanReports({ cache, client });
    expect(group).toMatchObject({ namespace: 'rehearsal-system', name: 'shop', uid: 'uid-shop' });
    expect(group!.reports.map((r) => r.metadata.name)).toEqual([newForm(shop, 0).metadata.name]);
  });
});
