// Evidence a cluster administrator cannot rewrite (issue 33), end to end on the real control plane
// with a real write-once store (versitygw, S3 Object Lock in compliance mode) and a real RFC 3161
// authority (`openssl ts` behind HTTP on 127.0.0.1):
// - the server anchors every chain head, time-stamped, locked for its retention; `openssl ts
//   -verify` checks the token without Rehearsal;
// - the store refuses to delete the anchor inside its retention, and an overwrite leaves it readable;
// - acting as a cluster administrator (the signing key read from its Secret), an old report's score
//   is rewritten and every later report re-signed, re-chained, deleted and re-created, and the
//   test's status.evidenceAnchor moved along: the chain alone verifies (that is the attack), but
//   `kubectl restoretest verify --anchors` and the server's own audit name the rewrite with the
//   anchor's time-stamped time, and so do both PDFs' attestation pages (read back with pdftotext);
//   a report signed with a key of the administrator's own is named as signed with an unknown key.
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import { S3Client, S3Error } from '../../server/archive/s3-client.js';
import { checkpointBytes, parseAnchorDocument, type AnchorDocument } from '../../protocol/evidence/anchor/checkpoint.js';
import { orderReportsForChain, verifyReportChain } from '../../protocol/evidence/report-chain.js';
import { keysFromPem } from '../../protocol/evidence/signature.js';
import { expandStoredReport } from '../../protocol/stored-report/stored-report.js';
import type { RestoreReport } from '../../server/domain/resources/resources.js';
import { signEvidence } from '../../server/evidence/evidence.js';
import { generateSigningKey, importPrivateKeyPem, type SigningKey } from '../../server/evidence/signing-key.js';
import { repoRoot } from '../helpers/cluster-info.js';
import {
  createEngineFixture,
  createRestoreTest,
  getRestoreTest,
  restoreTestBody,
  trigger,
  uniqueTestName,
  waitForReports,
  type EngineFixture,
} from '../helpers/engine-fixture.js';
import { deleteNamespaces, testKubeconfigPath, waitFor } from '../helpers/kube.js';
import { startObjectLockStore, type ObjectLockStore } from '../helpers/object-lock-store.js';
import { opensslVerifies, startOpensslTsa, type OpensslTsa } from '../helpers/openssl-tsa.js';
import { REHEARSAL_NAMESPACE, rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { metricLine, startInProcess } from '../helpers/rehearsal-server.js';
import { jwkOf, sign, vendorKey } from '../fixtures/evidence/licenses.js';
import { assertPoppler, pdftotext, writePdf } from '../fixtures/evidence/poppler.js';

jest.setTimeout(240_000);

let fixture: EngineFixture;
let store: ObjectLockStore;
let tsa: OpensslTsa;
let rehearsal: Rehearsal;
let s3: S3Client;
let custom: CustomObjectsApi;
const testName = uniqueTestName('anchored');
const workDir = path.join(repoRoot, 'test/.tmp/evidence-anchors');
const binDir = path.join(repoRoot, 'cmd/kubectl-restoretest/bin');
const RETENTION_SECONDS = 3600;
const LICENSE_SECRET = 'rehearsal-license';
const vendor = vendorKey('vendor-anchors');

async function deleteLicense(): Promise<void> {
  try {
    await fixture.admin.makeApiClient(CoreV1Api).deleteNamespacedSecret({ name: LICENSE_SECRET, namespace: REHEARSAL_NAMESPACE });
  } catch (error) {
    if ((error as { code?: number }).code !== 404) throw error;
  }
}

beforeAll(async () => {
  assertPoppler();
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  fixture = await createEngineFixture('anchors');
  // An enterprise license (for the PDFs) from a vendor key only this server trusts.
  const licenseKeyFile = path.join(workDir, 'vendor.jwk.json');
  writeFileSync(licenseKeyFile, JSON.stringify(await jwkOf(vendor)));
  await deleteLicense();
  await fixture.admin.makeApiClient(CoreV1Api).createNamespacedSecret({
    namespace: REHEARSAL_NAMESPACE,
    body: { metadata: { name: LICENSE_SECRET, namespace: REHEARSAL_NAMESPACE }, type: 'Opaque', stringData: { license: await sign(vendor, { tier: 'enterprise', customer: 'anchors' }) } },
  });
  custom = fixture.admin.makeApiClient(CustomObjectsApi);
  store = await startObjectLockStore('evidence-anchors');
  s3 = new S3Client(store.location);
  tsa = await startOpensslTsa('Rehearsal Anchors Test TSA');
  rehearsal = await startInProcess({
    kubeconfigPath: await rehearsalKubeconfig('evidence-anchors.kubeconfig'),
    veleroNamespace: fixture.veleroNamespace,
    probeTargets: fixture.endpoints.targets,
    extra: {
      REHEARSAL_ANCHOR_S3_ENDPOINT: store.location.endpoint,
      REHEARSAL_ANCHOR_S3_BUCKET: store.location.bucket,
      REHEARSAL_ANCHOR_S3_REGION: store.location.region,
      REHEARSAL_ANCHOR_ACCESS_KEY_ID: store.location.accessKeyId,
      REHEARSAL_ANCHOR_SECRET_ACCESS_KEY: store.location.secretAccessKey,
      REHEARSAL_ANCHOR_RETENTION: `${RETENTION_SECONDS}s`,
      // The test writes anchors when it needs them (rehearsal.anchors.write); the timer would only add more.
      REHEARSAL_ANCHOR_INTERVAL_SECONDS: '86400',
      REHEARSAL_TSA_URL: tsa.url('rsa').href,
      REHEARSAL_TSA_CA_FILE: tsa.caFile,
      REHEARSAL_LICENSE_PUBLIC_KEYS: licenseKeyFile,
    },
  });
  await createRestoreTest(fixture, restoreTestBody(fixture, testName, {}));
  for (let run = 1; run <= 3; run++) {
    await trigger(fixture, testName);
    await waitForReports(fixture, testName, run, 120_000);
  }
  // status.evidenceAnchor names the third report once the engine has recorded it.
  await waitFor(async () => (await getRestoreTest(fixture, testName)).status?.evidenceAnchor?.sequence === 3, {
    timeoutMs: 30_000,
    description: 'the evidence anchor to name the third report',
  });
}, 300_000);

afterAll(async () => {
  if (fixture) await deleteLicense();
  await rehearsal?.stop();
  await store?.stop();
  await tsa?.stop();
  await fixture?.stop();
  await deleteNamespaces(fixture.admin, [fixture.source, fixture.testNamespace, fixture.veleroNamespace]);
});

async function storedReports(): Promise<RestoreReport[]> {
  const list = (await custom.listNamespacedCustomObject({
    group: 'rehearsal.dev',
    version: 'v1alpha1',
    namespace: fixture.testNamespace,
    plural: 'restorereports',
  })) as { items: RestoreReport[] };
  // Expanded (spec.details unpacked, evidence included): what an administrator edits and re-creates.
  return orderReportsForChain(list.items.map((report) => expandStoredReport(report)).filter((report) => report.spec.testRef.name === testName));
}

/** The keys the server publishes (current and retired), as a verifier takes them. */
async function publishedRing() {
  const keys = (await (await fetch(`http://127.0.0.1:${rehearsal.port()}/api/v1/evidence/keys`)).json()) as Array<{ publicKeyPem: string }>;
  return keysFromPem(keys.map((key) => key.publicKeyPem).join('\n'));
}

/** Every version of every anchor in the bucket, written to `dir` as an auditor downloads them. */
async function downloadAnchors(dir: string): Promise<AnchorDocument[]> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const documents: AnchorDocument[] = [];
  for (const version of await s3.listObjectVersions('rehearsal/anchors/')) {
    if (version.deleteMarker) continue;
    const bytes = (await s3.getObject(version.key, 16 * 1024 * 1024, version.versionId))!;
    writeFileSync(path.join(dir, `${path.basename(version.key, '.json')}.${version.versionId}.json`), bytes);
    const document = parseAnchorDocument(bytes.toString('utf8'));
    if (document) documents.push(document);
  }
  return documents;
}

function verify(extra: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const args = ['restoretest', 'verify', testName, '-n', fixture.testNamespace, '--server', `http://127.0.0.1:${rehearsal.port()}`, ...extra];
  return new Promise((resolve) => {
    execFile('kubectl', args, { env: { ...process.env, PATH: `${binDir}:${process.env.PATH}`, KUBECONFIG: testKubeconfigPath(), NO_COLOR: '1' }, timeout: 120_000 }, (error, stdout, stderr) => {
      const code = error ? (error as { code?: unknown }).code : 0;
      resolve({ code: typeof code === 'number' ? code : 1, stdout, stderr });
    });
  });
}

/** A PDF of the API read back with pdftotext, without whitespace (pdftotext wraps lines). */
async function pdfText(url: string, file: string): Promise<string> {
  await waitFor(async () => rehearsal.license.current().license.tier === 'enterprise', { timeoutMs: 30_000, description: 'the enterprise license' });
  const response = await fetch(`http://127.0.0.1:${rehearsal.port()}${url}`);
  expect(response.status).toBe(200);
  return squeeze(pdftotext(writePdf(Buffer.from(await response.arrayBuffer()), file), '-layout'));
}

const squeeze = (text: string) => text.replace(/\s+/g, '');

let anchored: { key: string; versionId: string; document: AnchorDocument; writtenBefore: Date };

describe('evidence anchors in write-once storage', () => {
  it('anchor every chain head, time-stamped by the authority, locked in compliance mode', async () => {
    const test = await getRestoreTest(fixture, testName);
    const result = await rehearsal.anchors!.write('scheduled');
    if (!result.written) throw new Error(`not written: ${result.reason}`);
    expect(result.versionId).toBeDefined();
    const head = result.document.checkpoint.heads.find((candidate) => candidate.testUid === test.metadata.uid);
    expect(head).toEqual({ testUid: test.metadata.uid, sequence: 3, digest: test.status!.evidenceAnchor!.digest });
    expect(result.document.timestamp).toBeDefined();

    // As stored: byte for byte what the server wrote, retained in compliance mode.
    const stored = parseAnchorDocument((await s3.getObject(result.key, 16 * 1024 * 1024, result.versionId))!.toString('utf8'))!;
    expect(stored).toEqual(result.document);
    const retention = await s3.getObjectRetention(result.key, result.versionId);
    expect(retention?.mode).toBe('COMPLIANCE');
    expect(retention!.retainUntil.getTime()).toBeGreaterThan(Date.now() + (RETENTION_SECONDS - 120) * 1000);

    // An auditor checks the token with openssl alone: over the checkpoint's canonical bytes.
    const dataFile = path.join(workDir, 'checkpoint.json');
    const tokenFile = path.join(workDir, 'anchor.tsr');
    writeFileSync(dataFile, checkpointBytes(stored.checkpoint));
    writeFileSync(tokenFile, Buffer.from(stored.timestamp!.token, 'base64'));
    const checked = await opensslVerifies(['-data', dataFile, '-in', tokenFile, '-token_in', '-CAfile', tsa.caFile]);
    expect(checked.output).toContain('Verification: OK');
    anchored = { key: result.key, versionId: result.versionId!, document: stored, writtenBefore: new Date() };
    expect(await metricLine(rehearsal, 'rehearsal_evidence_anchor_disagreements')).toBe('rehearsal_evidence_anchor_disagreements 0');
    expect(await pdfText('/api/v1/compliance/pdf?framework=soc2&period=30', 'anchors-agree')).toContain(squeeze('every chain agrees with every anchor'));
  });

  it('cannot be deleted inside its retention, and an overwrite leaves it readable', async () => {
    const refused = await s3.deleteObject(anchored.key, anchored.versionId).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(S3Error);
    expect((refused as S3Error).status).toBe(403);
    // An overwrite of the key (what an administrator holding the bucket's credentials could try).
    await s3.putObject(anchored.key, Buffer.from('{"forged":true}'), 'application/json').catch(() => undefined);
    const original = await s3.getObject(anchored.key, 16 * 1024 * 1024, anchored.versionId);
    expect(parseAnchorDocument(original!.toString('utf8'))).toEqual(anchored.document);
    expect((await s3.listObjectVersions(anchored.key)).map((version) => version.versionId)).toContain(anchored.versionId);
  });

  it('a cluster administrator who re-signs and re-chains a rewritten history is named by the anchors, with their time', async () => {
    const ring = await publishedRing();
    expect(verifyReportChain(await storedReports(), ring).ok).toBe(true);
    expect((await verify(['--anchors', await anchorsDir('before'), '--tsa-cert', tsa.caFile])).code).toBe(0);

    // The administrator: reads the key, edits the first report's score, re-signs it and every later
    // report (same sequences, new digests), deletes and re-creates them, and moves status.evidenceAnchor.
    const secret = await fixture.admin.makeApiClient(CoreV1Api).readNamespacedSecret({ name: 'rehearsal-signing-key', namespace: REHEARSAL_NAMESPACE });
    const key: SigningKey = importPrivateKeyPem(Buffer.from(secret.data!['private-key.pem']!, 'base64').toString('utf8'));
    const original = await storedReports();
    expect(original).toHaveLength(3);
    const rewritten = rechain(original, key, (report, index) => {
      if (index === 0) report.spec.score = Math.min(100, report.spec.score + 17);
    });
    await replaceReports(original, rewritten);
    const newest = rewritten.at(-1)!;
    await custom.patchNamespacedCustomObjectStatus(
      {
        group: 'rehearsal.dev',
        version: 'v1alpha1',
        namespace: fixture.testNamespace,
        plural: 'restoretests',
        name: testName,
        body: { status: { evidenceAnchor: { sequence: newest.spec.evidence!.sequence, digest: newest.spec.evidence!.digest, report: newest.metadata.name } } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );

    // What lives in the cluster verifies: same key, intact links, the in-cluster anchor moved along.
    expect(verifyReportChain(await storedReports(), ring, { anchor: (await getRestoreTest(fixture, testName)).status!.evidenceAnchor! }).ok).toBe(true);

    // The anchors do not agree, and say since when (the authority's time, before the rewrite).
    const dir = await anchorsDir('after');
    const result = await verify(['--anchors', dir, '--tsa-cert', tsa.caFile]);
    expect(result.code).toBe(1);
    const genTime = anchored.document.timestamp && (await tokenTime(anchored.document));
    expect(genTime!.getTime()).toBeLessThanOrEqual(anchored.writtenBefore.getTime());
    expect(result.stdout).toContain(
      `rewritten after it was anchored: ${newest.metadata.name} (sequence 3) has digest ${newest.spec.evidence!.digest.slice(0, 19)}, but the anchor written ${genTime!.toISOString()} (time-stamped by`,
    );

    // The server's own audit, before its next anchor, says the same.
    const next = await rehearsal.anchors!.write('scheduled');
    // (The anchor the server wrote at start may have recorded an earlier head too: named as well.)
    expect(next.audit?.disagreements).toEqual(expect.arrayContaining([expect.stringContaining(`${fixture.testNamespace}/${testName}: rewritten after it was anchored: ${newest.metadata.name} (sequence 3)`)]));
    expect(next.audit?.disagreeingChains).toBe(1);
    expect(await metricLine(rehearsal, 'rehearsal_evidence_anchor_disagreements')).toBe('rehearsal_evidence_anchor_disagreements 1');

    // Compliance counts it as an evidence exception of the test's source namespace, in every control.
    const testKey = `${fixture.testNamespace}/${testName}`;
    await waitFor(
      async () => {
        const body = (await (await fetch(`http://127.0.0.1:${rehearsal.port()}/api/v1/compliance?framework=soc2&period=30`)).json()) as { controls: { status: string; evidence: string }[] };
        return body.controls.every(
          (control) => control.status === 'at_risk' && control.evidence.includes(`evidence exception: changed after it was anchored (disagrees with write-once evidence anchors) of ${testKey}`),
        );
      },
      { timeoutMs: 20_000, description: 'compliance to name the chain that disagrees with its anchor' },
    );

    // Both PDFs state it on their attestation pages.
    const compliance = await pdfText('/api/v1/compliance/pdf?framework=soc2&period=30', 'anchors-compliance');
    const testPdf = await pdfText(`/api/restore-tests/${testName}/report.pdf?period=30&namespace=${fixture.testNamespace}`, 'anchors-test');
    for (const text of [compliance, testPdf]) {
      expect(text).toContain(squeeze(`disagreement(s) with anchors written earlier`));
      expect(text).toContain(squeeze(`rewritten after it was anchored: ${newest.metadata.name} (sequence 3)`));
      expect(text).toContain(squeeze('How to check the anchors without Rehearsal'));
      expect(text).toContain(squeeze(`${anchored.key}?versionId=${anchored.versionId}, written`));
    }
  });

  it('a report signed with a key the cluster never published is named as such', async () => {
    const stranger = generateSigningKey();
    const reports = await storedReports();
    const forged = rechain(reports.slice(-1), stranger, (report) => {
      report.spec.score = 100;
    }, reports.at(-2)!.spec.evidence!.digest);
    await replaceReports(reports.slice(-1), forged);
    const result = await verify([]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`${forged[0]!.metadata.name}: signed with unknown key ${stranger.keyId}`);
  });
});

/** The reports from the first on, edited and re-signed in order with `key`, each linked to the one before. */
function rechain(reports: readonly RestoreReport[], key: SigningKey, edit: (copy: RestoreReport, index: number) => void, previous = reports[0]!.spec.evidence!.previousDigest): RestoreReport[] {
  let previousDigest = previous;
  return reports.map((report, index) => {
    const copy = JSON.parse(JSON.stringify(report)) as RestoreReport;
    copy.metadata = { name: report.metadata.name, namespace: report.metadata.namespace, labels: report.metadata.labels };
    delete copy.spec.evidence;
    edit(copy, index);
    copy.spec.evidence = signEvidence(copy, previousDigest, key, report.spec.evidence!.sequence);
    previousDigest = copy.spec.evidence.digest;
    return copy;
  });
}

async function replaceReports(old: readonly RestoreReport[], replacements: readonly RestoreReport[]): Promise<void> {
  for (const report of old) {
    await custom.deleteNamespacedCustomObject({ group: 'rehearsal.dev', version: 'v1alpha1', namespace: report.metadata.namespace!, plural: 'restorereports', name: report.metadata.name });
  }
  for (const report of replacements) {
    await waitFor(
      async () => {
        try {
          await custom.createNamespacedCustomObject({ group: 'rehearsal.dev', version: 'v1alpha1', namespace: report.metadata.namespace!, plural: 'restorereports', body: report });
          return true;
        } catch (error) {
          if ((error as { code?: number }).code === 409) return false; // the old one is still being deleted
          throw error;
        }
      },
      { timeoutMs: 30_000, description: `report ${report.metadata.name} re-created` },
    );
  }
  const names = replacements.map((report) => report.spec.evidence!.digest);
  await waitFor(async () => names.every((digest) => rehearsal.cache.fullReportsOfTest(`${fixture.testNamespace}/${testName}`).some((report) => report.spec.evidence?.digest === digest)), {
    timeoutMs: 30_000,
    description: 'the server to see the re-created reports',
  });
}

async function anchorsDir(name: string): Promise<string> {
  const dir = path.join(workDir, `anchors-${name}`);
  expect((await downloadAnchors(dir)).length).toBeGreaterThan(0);
  return dir;
}

async function tokenTime(document: AnchorDocument): Promise<Date> {
  const { verifyTimestampToken } = await import('../../protocol/evidence/timestamp/timestamp-token.js');
  return verifyTimestampToken(document.timestamp!.token, checkpointBytes(document.checkpoint), tsa.ca).genTime;
}
