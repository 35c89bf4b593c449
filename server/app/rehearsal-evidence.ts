// The evidence part of a Rehearsal server: the signing key (created on first start, shared by every
// replica through a Secret), the signer every RestoreReport passes through before it is created,
// and the verifier the compliance evaluation and the PDFs use. The license decides which paid
// features answer; it sits here because it is verified with keys the same way evidence is.
import { reportTestKeyOf } from '../domain/read-models/report-index.js';
import { reportEvidenceDigest } from '../domain/read-models/report-summary.js';
import { EvidenceKeyStore } from '../evidence/evidence-keys.js';
import { EvidenceVerifier } from '../evidence/evidence-verifier.js';
import { loadLicenseKeyRing } from '../license/license-keys.js';
import { LicenseWatch } from '../license/license-watch.js';
import { ReportSigner } from '../evidence/report-signer.js';
import type { RehearsalBasics } from './rehearsal-basics.js';

/** What signs a report before it is created; tests replace it (RehearsalOverrides.signer). */
export type RunSigner = Pick<ReportSigner, 'sign'> & Partial<Pick<ReportSigner, 'recordAnchor'>>;

export interface EvidenceParts {
  evidenceKeys: EvidenceKeyStore;
  signer: RunSigner;
  evidence: EvidenceVerifier;
  license: LicenseWatch;
}

export interface EvidenceDeps extends RehearsalBasics {
  signer: RunSigner | undefined;
}

export function createEvidenceParts({ config, kubeConfig, kube, cache, testStatus, metrics, log, now, signer }: EvidenceDeps): EvidenceParts {
  const evidenceKeys = new EvidenceKeyStore({
    kubeConfig,
    core: kube.core,
    namespace: config.namespace,
    log: log.child({ component: 'evidence-keys' }),
    now,
    ...(config.signingKeyFile ? { keyFile: config.signingKeyFile, keyFilePollMs: config.signingKeyFilePollSeconds * 1000 } : {}),
  });
  const reportSigner =
    signer ??
    new ReportSigner({
      keys: evidenceKeys,
      tests: testStatus,
      log: log.child({ component: 'evidence' }),
      metrics,
    });
  const evidence = new EvidenceVerifier(
    () => evidenceKeys.keyRing(),
    {
      reportsOfTest: (testKey) => cache.fullReportsOfTest(testKey),
      report: (key) => cache.fullReport(key),
      digestsOfTest: (testKey) =>
        cache.reportIndex.runsOfTest(testKey).map((run) => reportEvidenceDigest(run.report)),
      sharedKey: (key) => cache.reportIndex.runOf(key)?.key,
    },
    () => cache.synced,
  );
  // A report's chain links are checked against the test's other reports: a new report that extends
  // its chain is checked on its own, any other change rechecks the test's links on next use.
  cache.onReportChange((event, key, current, previous) => {
    const report = current ?? previous;
    if (event === 'add' && current) evidence.reportAdded(key, reportTestKeyOf(current));
    else if (report) evidence.invalidateTest(reportTestKeyOf(report));
    if (event === 'delete' && previous) evidence.forget(previous);
  });
  const license = new LicenseWatch({
    kubeConfig,
    namespace: config.namespace,
    loadKeys: () => loadLicenseKeyRing(config.licensePublicKeys),
    log: log.child({ component: 'license' }),
    now,
  });
  return { evidenceKeys, signer: reportSigner, evidence, license };
}
