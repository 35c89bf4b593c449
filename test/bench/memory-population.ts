// The bench population held in memory the way the server's informer cache holds it (a summary per
// report in the ReportIndex, the whole report packed), without an apiserver: the 1,000 tests × 90
// days of bench-data.ts. Shared by bench:memory's server, bench:domain and the PDF phase probe.
import { ReportIndex, reportKeyOf } from '../../server/domain/read-models/report-index.js';
import { flatString, Interner, summarizeReport } from '../../server/domain/read-models/report-summary.js';
import type { RestoreReport, RestoreTest } from '../../server/domain/resources/resources.js';
import type { ApiCache } from '../../server/api/ports.js';
import {
  packedReportsJson,
  packReport,
  unpackReport,
  writePackedReportsJson,
  type PackedReport,
} from '../../server/report-codec/packed-report.js';
import { restoreReport, restoreTest, testShape, testStatus } from './bench-data.js';

export interface MemoryPopulation {
  tests: RestoreTest[];
  index: ReportIndex;
  packed: Map<string, PackedReport>;
}

export function buildMemoryPopulation(testCount: number, days: number, now: number): MemoryPopulation {
  const tests: RestoreTest[] = [];
  const index = new ReportIndex();
  const interner = new Interner();
  const packed = new Map<string, PackedReport>();
  // JSON round trips: the cache holds parsed objects, not the builders' shared constants.
  for (let i = 0; i < testCount; i += 1) {
    const shape = testShape(i, testCount);
    const uid = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    tests.push(
      JSON.parse(
        JSON.stringify({
          ...restoreTest(shape),
          metadata: { ...restoreTest(shape).metadata, uid },
          status: testStatus(shape, now),
        }),
      ) as RestoreTest,
    );
  }
  for (let run = days - 1; run >= 0; run -= 1) {
    for (let i = 0; i < testCount; i += 1) {
      const report = JSON.parse(
        JSON.stringify(restoreReport(testShape(i, testCount), run, now, { uid: `uid-${i}` })),
      ) as RestoreReport;
      // One flat key string shared by the store and the index, as the informer cache does.
      const key = flatString(reportKeyOf(report));
      index.add(summarizeReport(report, interner), key);
      packed.set(key, packReport(report));
    }
  }
  return { tests, index, packed };
}

/** The population as the API's cache port, read-only (as the informer cache serves it). */
export function populationCache({ tests, index, packed }: MemoryPopulation): ApiCache {
  const byName = new Map(tests.map((test) => [`${test.metadata.namespace}/${test.metadata.name}`, test]));
  const packedOf = (keys: readonly string[]): PackedReport[] =>
    keys.map((key) => packed.get(key)).filter((found) => found !== undefined);
  return {
    synced: true,
    version: '1',
    reportIndex: index,
    fullReport: (key) => {
      const found = packed.get(key);
      return found && unpackReport(found);
    },
    reportsJson: (keys) => packedReportsJson(packedOf(keys)),
    writeReportsJson: (keys, write) => writePackedReportsJson(packedOf(keys), write),
    listTests: () => tests,
    getTest: (namespace, name) => byName.get(`${namespace}/${name}`),
    onTestChange: () => undefined,
  };
}
