// The server under test of `npm run bench:memory`: the real HTTP app (createApp: routes, response
// cache, prepared answers, compliance, PDFs) over an in-memory cache holding the benchmark's
// population (bench-data.ts: 1,000 tests × 90 days = 90,000 reports), stored the way the informer
// cache stores them (an index of summaries, each whole report packed). No apiserver: loading
// 90,000 reports through one costs ~25 minutes and ~10 GB (see README.md); what a request adds to
// the process is the same. Prints "ready <port>" when it listens.
import { createServer } from 'node:http';
import pino from 'pino';
import { createApp } from '../../server/api/http.js';
import type { ApiCache, EvidenceKeySource, LicenseSource, TestWriter } from '../../server/api/ports.js';
import { loadConfig } from '../../server/config.js';
import { featuresForTier } from '../../server/domain/license-tiers.js';
import { testKeyOf } from '../../server/domain/read-models/report-index.js';
import { EvidenceVerifier } from '../../server/evidence/evidence-verifier.js';
import { exportPublicKeyPem, generateSigningKey, publicKeyRing } from '../../server/evidence/signing-key.js';
import { unpackReport } from '../../server/report-codec/packed-report.js';
import { Metrics } from '../../server/metrics/metrics.js';
import { BENCH_NAMESPACE } from './bench-data.js';
import { buildMemoryPopulation, populationCache } from './memory-population.js';

const testCount = Number(process.env.BENCH_TESTS ?? 1000);
const days = Number(process.env.BENCH_DAYS ?? 90);
const now = Date.now();

const buildStarted = performance.now();
const { tests, index, packed } = buildMemoryPopulation(testCount, days, now);
const buildMs = Math.round(performance.now() - buildStarted);
const cache: ApiCache = populationCache({ tests, index, packed });
const readOnly = (): never => {
  throw new Error('the memory bench is read-only');
};
const writer: TestWriter = {
  getTest: readOnly,
  createTest: readOnly,
  replaceTestSpec: readOnly,
  deleteTest: readOnly,
  annotateTest: readOnly,
};
// Enterprise, so the licensed answers (compliance page, PDFs) are measured too.
const license: LicenseSource = {
  current: () => ({
    license: {
      tier: 'enterprise',
      expiresAt: null,
      trialEndsAt: null,
      isExpired: false,
      isTrialing: false,
      trialDaysLeft: 0,
      features: featuresForTier('enterprise'),
    },
  }),
};
const key = generateSigningKey();
const evidenceKeys: EvidenceKeySource = {
  publicKeys: () => [
    {
      keyId: key.keyId,
      algorithm: 'Ed25519',
      publicKeyPem: exportPublicKeyPem(key),
      createdAt: new Date(now).toISOString(),
      status: 'current',
    },
  ],
  signingKey: () => ({ key }),
  keyRing: () => publicKeyRing([key.publicKey]),
};

// As the server wires it (rehearsal-evidence.ts): compliance asks it about every run, so its state
// for 90,000 reports is part of what the server holds.
const ring = publicKeyRing([key.publicKey]);
const evidence = new EvidenceVerifier(
  () => ring,
  {
    reportsOfTest: (testKey) =>
      index.runsOfTest(testKey).flatMap((run) => {
        const found = packed.get(run.key);
        return found ? [unpackReport(found)] : [];
      }),
    sharedKey: (key) => index.runOf(key)?.key,
  },
  () => true,
);

const config = loadConfig({
  REHEARSAL_AUTH_MODE: 'none',
  REHEARSAL_HOST: '127.0.0.1',
  REHEARSAL_PORT: '0',
  REHEARSAL_NAMESPACE: BENCH_NAMESPACE,
});
const app = createApp({
  config,
  cache,
  client: writer,
  metrics: new Metrics({ defaultMetrics: false }),
  log: pino({ level: 'silent' }),
  now: () => new Date(now),
  license,
  evidenceKeys,
  verifyEvidence: (report, keys) => evidence.verify(report, keys),
  evidenceProblems: (report) => evidence.problems(report),
});
// As the server does right after it starts (rehearsal.ts): every test's chain verified in the
// background, before the requests measured here (bench:api likewise waits until the server settled).
await evidence.warmChains(tests.map(testKeyOf));
const server = createServer(app);
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  (globalThis as { gc?: () => void }).gc?.(); // with --expose-gc (bench:memory): live heap only
  const heapMb = Math.round(process.memoryUsage().heapUsed / 1e5) / 10;
  console.log(`ready ${typeof address === 'object' && address ? address.port : 0} ${index.size} ${heapMb} ${buildMs}`);
});
