// Evidence auditors can trust, on the real control plane: Rehearsal (in-process, under its own
// ServiceAccount and RBAC) creates its signing key in a Secret (two replicas racing end up with
// one key), publishes the public key in a ConfigMap and through the API, signs and hash-chains
// EVERY RestoreReport (failed runs included) at creation, detects reports edited or deleted in the
// apiserver afterwards, lets unverified evidence never satisfy a control, rotates its key without
// a restart, and gates the paid features on a license Secret whose changes take effect live.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type V1ConfigMap,
  type V1Secret,
} from '@kubernetes/client-node';
import pino from 'pino';
import { LABEL_TEST, type RestoreReport } from '../../server/domain/resources/resources.js';
import { EvidenceKeyStore } from '../../server/evidence/evidence-keys.js';
import { parsePublishedKeys } from '../../server/evidence/published-keys.js';
import { loadKubeConfig } from '../../server/kube/client.js';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import { orderReportsForChain, verifyReportChain } from '../../protocol/evidence/report-chain.js';
import { verifyPdfAndPages } from '../helpers/pdf-pages.js';
import { percent } from '../../server/pdf/format.js';
import { publicKeyRing } from '../../server/evidence/signing-key.js';
import { jwkOf, numericDate, sign, vendorKey } from '../fixtures/evidence/licenses.js';
import { assertPoppler, pdftotext, writePdf } from '../fixtures/evidence/poppler.js';
import { repoRoot } from '../helpers/cluster-info.js';
import {
  createEngineFixture,
  createRestoreTest,
  listReports,
  restoreTestBody,
  trigger,
  uniqueTestName,
  waitForReports,
  type EngineFixture,
} from '../helpers/engine-fixture.js';
import { deleteNamespaces, waitFor } from '../helpers/kube.js';
import { REHEARSAL_NAMESPACE, rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';
import { shopChecks } from '../helpers/sample-app.js';
import { createBackup } from '../velero/simulator.js';

const SIGNING_SECRET = 'rehearsal-signing-key';
const PUBLIC_KEYS = 'rehearsal-evidence-public-keys';
const LICENSE_SECRET = 'rehearsal-license';

const vendor = vendorKey('vendor-2026');
const oldVendor = vendorKey('vendor-2025');
const impostor = vendorKey('vendor-2026'); // same kid, different key: a forged license

let fixture: EngineFixture;
let core: CoreV1Api;
let custom: CustomObjectsApi;
let rehearsalConfigPath: string;
let rehearsal: Rehearsal;
let baseUrl: string;
let testName: string;
const sandboxes = new Set<string>();

// ---------------------------------------------------------------------------- helpers

async function deleteIfPresent(kind: 'secret' | 'configmap', name: string): Promise<void> {
  try {
    if (kind === 'secret') await core.deleteNamespacedSecret({ name, namespace: REHEARSAL_NAMESPACE });
    else await core.deleteNamespacedConfigMap({ name, namespace: REHEARSAL_NAMESPACE });
  } catch (error) {
    if ((error as { code?: number }).code !== 404) throw error;
  }
}

async function readSecret(name: string): Promise<V1Secret> {
  return core.readNamespacedSecret({ name, namespace: REHEARSAL_NAMESPACE });
}

async function readPublishedKeys(): Promise<{ configMap: V1ConfigMap; current?: string; retired: string[] }> {
  const configMap = await core.readNamespacedConfigMap({ name: PUBLIC_KEYS, namespace: REHEARSAL_NAMESPACE });
  const { document, problems } = parsePublishedKeys(configMap.data?.['keys.json']);
  expect(problems).toEqual([]);
  return { configMap, current: document.current?.keyId, retired: document.retired.map((key) => key.keyId) };
}

/** Every trusted key as an auditor gets it: from the published ConfigMap, not from the server. */
async function publishedRing(): Promise<ReturnType<typeof publicKeyRing>> {
  const { configMap } = await readPublishedKeys();
  const { document } = parsePublishedKeys(configMap.data?.['keys.json']);
  return publicKeyRing([document.current!, ...document.retired].map((key) => key.publicKeyPem));
}

async function storedReports(name = testName): Promise<RestoreReport[]> {
  return orderReportsForChain(await listReports(fixture, name));
}

async function installLicense(token: string | undefined): Promise<void> {
  if (token === undefined) {
    await deleteIfPresent('secret', LICENSE_SECRET);
    return;
  }
  const body: V1Secret = {
    metadata: { name: LICENSE_SECRET, namespace: REHEARSAL_NAMESPACE },
    type: 'Opaque',
    stringData: { license: token },
  };
  try {
    await core.createNamespacedSecret({ namespace: REHEARSAL_NAMESPACE, body });
  } catch (error) {
    if ((error as { code?: number }).code !== 409) throw error;
    await core.replaceNamespacedSecret({ name: LICENSE_SECRET, namespace: REHEARSAL_NAMESPACE, body });
  }
}

interface LicenseView {
  tier: string;
  expiresAt: string | null;
  trialEndsAt: string | null;
  isExpired: boolean;
  isTrialing: boolean;
  trialDaysLeft: number;
  features: string[];
}

async function getJson<T>(urlPath: string): Promise<{ status: number; body: T; contentType: string | null }> {
  const response = await fetch(`${baseUrl}${urlPath}`);
  return {
    status: response.status,
    body: (await response.json()) as T,
    contentType: response.headers.get('content-type'),
  };
}

/** Installs a license and waits until the running server answers with it (no restart). */
async function switchLicense(
  token: string | undefined,
  expect: (license: LicenseView) => boolean,
): Promise<LicenseView> {
  await installLicense(token);
  return waitFor(
    async () => {
      const { body } = await getJson<LicenseView>('/api/v1/license');
      return expect(body) ? body : undefined;
    },
    { timeoutMs: 20_000, intervalMs: 100, description: 'the license change to take effect' },
  );
}

async function pdfStatus(
  urlPath: string,
): Promise<{ status: number; contentType: string | null; body: Buffer; disposition: string | null }> {
  const response = await fetch(`${baseUrl}${urlPath}`);
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    disposition: response.headers.get('content-disposition'),
    body: Buffer.from(await response.arrayBuffer()),
  };
}

async function runOnce(expectedCount: number): Promise<RestoreReport> {
  await trigger(fixture, testName);
  const reports = await waitForReports(fixture, testName, expectedCount, 90_000);
  const newest = reports[reports.length - 1]!;
  newest.spec.sandboxNamespaces.forEach((sandbox) => sandboxes.add(sandbox));
  return newest;
}

async function setBackup(backupName: string): Promise<void> {
  await custom.patchNamespacedCustomObject(
    {
      group: 'rehearsal.dev',
      version: 'v1alpha1',
      namespace: fixture.testNamespace,
      plural: 'restoretests',
      name: testName,
      body: {
        spec: {
          backupSource: {
            backupName,
            namespaces: [{ name: fixture.source }],
            providerNamespace: fixture.veleroNamespace,
          },
        },
      },
    },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
}

/** What an attacker with admin rights can do to a report whose spec is immutable: delete and re-create it. */
async function recreate(report: RestoreReport, edit: (copy: RestoreReport) => void): Promise<RestoreReport> {
  const copy = JSON.parse(JSON.stringify(report)) as RestoreReport;
  copy.metadata = {
    name: report.metadata.name,
    namespace: report.metadata.namespace,
    labels: report.metadata.labels,
    ownerReferences: report.metadata.ownerReferences,
  };
  edit(copy);
  await deleteReport(report);
  return (await custom.createNamespacedCustomObject({
    group: 'rehearsal.dev',
    version: 'v1alpha1',
    namespace: report.metadata.namespace!,
    plural: 'restorereports',
    body: copy,
  })) as RestoreReport;
}

async function deleteReport(report: RestoreReport): Promise<void> {
  await custom.deleteNamespacedCustomObject({
    group: 'rehearsal.dev',
    version: 'v1alpha1',
    namespace: report.metadata.namespace!,
    plural: 'restorereports',
    name: report.metadata.name,
  });
  await waitFor(
    async () => !(await listReports(fixture, testName)).some((r) => r.metadata.uid === report.metadata.uid),
    {
      description: `report ${report.metadata.name} to be gone`,
    },
  );
}

interface ComplianceView {
  totalTests: number;
  passRate: number;
  avgScore: number;
  slaCompliance: number;
  namespacesCovered: number;
  controls: { id: string; status: string; evidence: string }[];
}

// ---------------------------------------------------------------------------- set-up

beforeAll(async () => {
  assertPoppler();
  fixture = await createEngineFixture('evidence');
  core = fixture.admin.makeApiClient(CoreV1Api);
  custom = fixture.admin.makeApiClient(CustomObjectsApi);
  rehearsalConfigPath = await rehearsalKubeconfig('evidence.kubeconfig');
  // A clean slate: no key, no published keys, no license.
  await Promise.all([
    deleteIfPresent('secret', SIGNING_SECRET),
    deleteIfPresent('configmap', PUBLIC_KEYS),
    deleteIfPresent('secret', LICENSE_SECRET),
  ]);
}, 120_000);

afterAll(async () => {
  await rehearsal?.stop();
  await fixture?.stop();
  await deleteNamespaces(fixture.admin, [
    fixture.source,
    fixture.testNamespace,
    fixture.veleroNamespace,
    ...sandboxes,
  ]);
});

// ---------------------------------------------------------------------------- signing key

describe('the signing key', () => {
  it('is created once when two replicas start at the same time: both sign with the same key', async () => {
    const log = pino({ level: 'silent' });
    const stores = [0, 1].map(() => {
      const kubeConfig = loadKubeConfig(rehearsalConfigPath);
      return new EvidenceKeyStore({
        kubeConfig,
        core: kubeConfig.makeApiClient(CoreV1Api),
        namespace: REHEARSAL_NAMESPACE,
        log,
        now: () => new Date(),
      });
    });
    try {
      const [a, b] = await Promise.all(stores.map((store) => store.start()));
      expect(a!.key.keyId).toBe(b!.key.keyId);
      const secret = await readSecret(SIGNING_SECRET);
      expect(secret.metadata?.annotations?.['rehearsal.dev/key-id']).toBe(a!.key.keyId);
      expect(Object.keys(secret.data ?? {})).toEqual(['private-key.pem']);
      await Promise.all(stores.map((store) => store.settled()));
      const published = await readPublishedKeys();
      expect(published.current).toBe(a!.key.keyId);
      expect(published.retired).toEqual([]);
      expect(published.configMap.data?.['current.pem']).toContain('BEGIN PUBLIC KEY');
    } finally {
      stores.forEach((store) => store.stop());
    }
  });

  it('is loaded, not replaced, by the server, and published through the API', async () => {
    const before = (await readSecret(SIGNING_SECRET)).metadata?.annotations?.['rehearsal.dev/key-id'];
    const keyFile = path.join(repoRoot, 'test/.tmp/evidence-vendor.jwk.json');
    const oldKeyFile = path.join(repoRoot, 'test/.tmp/evidence-vendor-2025.pem');
    mkdirSync(path.dirname(keyFile), { recursive: true });
    writeFileSync(keyFile, JSON.stringify(await jwkOf(vendor)));
    writeFileSync(oldKeyFile, oldVendor.publicPem);
    rehearsal = await startInProcess({
      kubeconfigPath: rehearsalConfigPath,
      veleroNamespace: fixture.veleroNamespace,
      probeTargets: fixture.endpoints.targets,
      extra: {
        // A JWK names its kid; a PEM needs kid=path.
        REHEARSAL_LICENSE_PUBLIC_KEYS: `${keyFile},vendor-2025=${oldKeyFile}`,
        REHEARSAL_CLUSTER_NAME: 'evidence-it',
      },
    });
    baseUrl = `http://127.0.0.1:${rehearsal.port()}`;
    const keys =
      await getJson<{ keyId: string; status: string; publicKeyPem: string }[]>('/api/v1/evidence/keys');
    expect(keys.status).toBe(200);
    expect(keys.body.map((key) => [key.keyId, key.status])).toEqual([[before, 'current']]);
    expect(keys.body[0]!.publicKeyPem).toBe((await readPublishedKeys()).configMap.data?.['current.pem']);
  });
});

// ---------------------------------------------------------------------------- signed runs

describe('every RestoreReport', () => {
  let brokenBackup: string;

  beforeAll(async () => {
    testName = uniqueTestName('signed');
    brokenBackup = `${fixture.backup}-broken`;
    await createBackup(fixture.admin, {
      name: brokenBackup,
      namespaces: [fixture.source],
      veleroNamespace: fixture.veleroNamespace,
      annotations: { 'simulator.rehearsal.dev/restore-outcome': 'Failed' },
    });
    await createRestoreTest(
      fixture,
      restoreTestBody(fixture, testName, {
        // Named, not "latest": the broken backup above is the newest one.
        backupSource: {
          backupName: fixture.backup,
          namespaces: [{ name: fixture.source }],
          providerNamespace: fixture.veleroNamespace,
        },
        healthChecks: { checks: shopChecks() },
        sandbox: { ttl: '30s' },
        sla: { maxRTO: '10m', alertOnExceed: false },
      }),
    );
  });

  it('is signed at creation and chained to the previous report of its test, failed runs included', async () => {
    expect((await runOnce(1)).spec.result).toBe('pass');
    expect((await runOnce(2)).spec.result).toBe('pass');
    await setBackup(brokenBackup);
    const failed = await runOnce(3);
    expect(failed.spec.result).toBe('fail');
    expect(failed.spec.failure?.reason).toBe('RestoreFailed');
    await setBackup(fixture.backup);
    expect((await runOnce(4)).spec.result).toBe('pass');

    const reports = await storedReports();
    expect(reports).toHaveLength(4);
    const keyId = (await readPublishedKeys()).current;
    for (const report of reports) {
      expect(report.spec.evidence).toMatchObject({
        algorithm: 'Ed25519',
        canonicalization: 'RFC8785',
        keyId,
      });
    }
    expect(reports[0]!.spec.evidence!.previousDigest).toBeUndefined();
    for (let i = 1; i < reports.length; i += 1) {
      expect(reports[i]!.spec.evidence!.previousDigest).toBe(reports[i - 1]!.spec.evidence!.digest);
    }
    // An auditor's check: the reports as the apiserver returns them, the keys as published.
    const verification = verifyReportChain(reports, await publishedRing());
    expect(verification.problems).toEqual([]);
    expect(verification.ok).toBe(true);
  });

  it('cannot be edited in place: the CRD refuses a change to the spec', async () => {
    const [first] = await storedReports();
    await expect(
      custom.patchNamespacedCustomObject(
        {
          group: 'rehearsal.dev',
          version: 'v1alpha1',
          namespace: first!.metadata.namespace!,
          plural: 'restorereports',
          name: first!.metadata.name,
          body: { spec: { score: 99 } },
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      ),
    ).rejects.toMatchObject({ code: 422 });
  });

  it('counts as verified evidence in the compliance evaluation', async () => {
    const { body } = await getJson<ComplianceView>('/api/v1/compliance?framework=soc2&period=30');
    expect(body.totalTests).toBe(4);
    const a13 = body.controls.find((control) => control.id === 'A1.3')!;
    expect(a13.status).toBe('satisfied');
    expect(a13.evidence).toContain('1 remediated exception');
    for (const report of await storedReports()) expect(rehearsal.evidence.problems(report)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------- license

describe('the license', () => {
  const periodPdf = (): string => '/api/v1/compliance/pdf?framework=soc2&period=30';
  const testPdf = (): string =>
    `/api/restore-tests/${testName}/report.pdf?period=30&namespace=${fixture.testNamespace}`;

  it('without a license Secret: community, PDFs and the compliance page answer 402, the JSON API 200', async () => {
    const license = await switchLicense(undefined, (view) => view.tier === 'community');
    expect(license).toEqual({
      tier: 'community',
      expiresAt: null,
      trialEndsAt: null,
      isExpired: false,
      isTrialing: false,
      trialDaysLeft: 0,
      features: [],
    });
    expect(rehearsal.license.current().reason).toContain('does not exist');
    for (const url of [periodPdf(), testPdf(), '/api/compliance?period=30']) {
      const answer = await getJson<{ type: string; status: number; detail: string }>(url);
      expect(answer.status).toBe(402);
      expect(answer.contentType).toMatch(/^application\/problem\+json/);
      expect(answer.body.type).toBe('https://rehearsal.dev/problems/license-required');
    }
    expect((await getJson('/api/v1/compliance?framework=soc2&period=30')).status).toBe(200);
  });

  it('pro: the compliance page opens, the PDFs stay at 402 (enterprise only)', async () => {
    const token = await sign(vendor, {
      tier: 'pro',
      customer: 'Acme',
      iat: numericDate('2026-01-01T00:00:00Z'),
    });
    const license = await switchLicense(token, (view) => view.tier === 'pro');
    expect(license.features).toEqual(['compliancePage']);
    expect((await getJson('/api/compliance?period=30')).status).toBe(200);
    expect((await pdfStatus(periodPdf())).status).toBe(402);
    expect((await pdfStatus(testPdf())).status).toBe(402);
  });

  it('enterprise: both PDFs, signed with the evidence key, with the sections and numbers auditors need', async () => {
    const token = await sign(vendor, { tier: 'enterprise', customer: 'Acme' });
    const license = await switchLicense(token, (view) => view.tier === 'enterprise');
    expect(license.features).toEqual(['compliancePage', 'pdfExport', 'pdfReports']);
    const ring = await publishedRing();

    const json = await getJson<ComplianceView>('/api/v1/compliance?framework=soc2&period=30');
    const compliance = await pdfStatus(periodPdf());
    expect(compliance.status).toBe(200);
    expect(compliance.contentType).toBe('application/pdf');
    expect(compliance.disposition).toBe('attachment; filename="rehearsal-compliance-soc2-30d.pdf"');
    const verified = await verifyPdfAndPages(compliance.body, ring);
    expect(verified).toMatchObject({ ok: true, contentCheck: 'identical' });
    const text = pdftotext(writePdf(compliance.body, 'compliance'), '-layout');
    const flat = text.replace(/\s+/g, ' ');
    for (const section of [
      'Restore-Test Evidence Report',
      'Scope and RTO targets',
      'Executive summary',
      'Status rules used',
      'Control status and evidence',
      'Not evidenced by this report',
      'Coverage matrix',
      'RTO analysis',
      'Exceptions and remediation',
      'Limitations',
      'Attestation',
      'Runs per RestoreTest',
    ]) {
      expect(flat).toContain(section);
    }
    expect(flat).toContain('SOC 2 (TSC 2017, rev. 2022) (soc2)');
    expect(flat).toContain('evidence-it');
    expect(flat).toContain(`${json.body.totalTests} (3 pass, 0 partial, 1 fail)`);
    expect(flat).toContain(percent(json.body.passRate));
    expect(flat).toContain(percent(json.body.slaCompliance));
    expect(flat).toContain(`${json.body.namespacesCovered}/1`);
    expect(flat).toContain(verified.attestation!.keyId);
    expect(flat).toContain(verified.attestation!.reportId);
    expect(flat).toContain('all 4 RestoreReports checked verify');
    expect(flat).toContain(fixture.source);
    expect(flat).toContain('RestoreFailed');
    for (const control of json.body.controls) expect(flat).toContain(control.id);
    expect(flat).not.toMatch(/\bcompliant\b/i);

    const report = await pdfStatus(testPdf());
    expect(report.status).toBe(200);
    expect(report.disposition).toBe(
      `attachment; filename="rehearsal-test-${fixture.testNamespace}-${testName}-30d.pdf"`,
    );
    expect(await verifyPdfAndPages(report.body, ring)).toMatchObject({
      ok: true,
      contentCheck: 'identical',
    });
    const testText = pdftotext(writePdf(report.body, 'test-report'), '-layout').replace(/\s+/g, ' ');
    for (const section of [
      'Restore Test Report',
      'Test definition',
      'Health-check configuration',
      'Run history',
      'Pass/fail breakdown per check',
      'Attestation',
    ]) {
      expect(testText).toContain(section);
    }
    expect(testText).toContain(testName);
    expect(testText).toContain('0 0 1 1 *');
    expect(testText).toContain('4 (3 pass, 0 partial, 1 fail)');
    expect(testText).toContain('web-health');
    expect(testText).toContain('4 of 4 RestoreReports verified');

    const unknown = await getJson<{ status: number }>(
      `/api/restore-tests/nope/report.pdf?namespace=${fixture.testNamespace}`,
    );
    expect(unknown.status).toBe(404);
  });

  it('trial: enterprise while the trial runs, community once it has ended', async () => {
    const trialEnds = new Date(Date.now() + 10 * 86_400_000 - 60_000).toISOString();
    const trial = await switchLicense(
      await sign(vendor, { tier: 'enterprise', trialEndsAt: trialEnds }),
      (view) => view.isTrialing,
    );
    expect(trial).toMatchObject({
      tier: 'enterprise',
      isTrialing: true,
      trialDaysLeft: 10,
      isExpired: false,
      trialEndsAt: trialEnds,
    });
    expect((await pdfStatus(periodPdf())).status).toBe(200);

    const ended = new Date(Date.now() - 86_400_000).toISOString();
    const lapsed = await switchLicense(
      await sign(vendor, { tier: 'enterprise', trialEndsAt: ended }),
      (view) => view.isExpired,
    );
    expect(lapsed).toMatchObject({
      tier: 'community',
      isTrialing: false,
      trialDaysLeft: 0,
      isExpired: true,
      features: [],
    });
    expect((await pdfStatus(periodPdf())).status).toBe(402);
  });

  it('expired: community with isExpired and the expiry date', async () => {
    const exp = Math.floor(Date.now() / 1000) - 86_400;
    const expired = await switchLicense(
      await sign(vendor, { tier: 'enterprise', exp }),
      (view) => view.isExpired && view.expiresAt !== null,
    );
    expect(expired).toMatchObject({
      tier: 'community',
      isExpired: true,
      expiresAt: new Date(exp * 1000).toISOString(),
      features: [],
    });
    expect(rehearsal.license.current().reason).toContain('expired');
    expect((await pdfStatus(testPdf())).status).toBe(402);
  });

  it('a bad signature, or an unknown key: community, not expired, the reason logged', async () => {
    await switchLicense(await sign(vendor, { tier: 'enterprise' }), (view) => view.tier === 'enterprise');
    const forged = await switchLicense(
      await sign(impostor, { tier: 'enterprise' }),
      (view) => view.tier === 'community',
    );
    expect(forged).toMatchObject({ isExpired: false, features: [] });
    expect(rehearsal.license.current().reason).toBe('license signature does not verify with key vendor-2026');
    expect((await pdfStatus(periodPdf())).status).toBe(402);

    // A license from the older vendor key (configured as a PEM with kid=path) still verifies.
    const older = await switchLicense(await sign(oldVendor, { tier: 'pro' }), (view) => view.tier === 'pro');
    expect(older.features).toEqual(['compliancePage']);
    const unknownKey = vendorKey('vendor-2030');
    await switchLicense(await sign(unknownKey, { tier: 'enterprise' }), (view) => view.tier === 'community');
    expect(rehearsal.license.current().reason).toContain('unknown key "vendor-2030"');
  });
});

// ---------------------------------------------------------------------------- rotation

describe('key rotation', () => {
  it('deleting the signing-key Secret rotates the key live; older evidence keeps verifying', async () => {
    const before = await readPublishedKeys();
    await core.deleteNamespacedSecret({ name: SIGNING_SECRET, namespace: REHEARSAL_NAMESPACE });
    const rotated = await waitFor(
      async () => {
        const published = await readPublishedKeys();
        return published.current !== before.current ? published : undefined;
      },
      { timeoutMs: 30_000, description: 'a new current key in the ConfigMap' },
    );
    expect(rotated.retired).toEqual([before.current]);
    expect((await readSecret(SIGNING_SECRET)).metadata?.annotations?.['rehearsal.dev/key-id']).toBe(
      rotated.current,
    );
    const keys = await getJson<{ keyId: string; status: string }[]>('/api/v1/evidence/keys');
    expect(keys.body.map((key) => [key.keyId, key.status])).toEqual([
      [rotated.current, 'current'],
      [before.current, 'retired'],
    ]);

    const fifth = await runOnce(5);
    expect(fifth.spec.evidence!.keyId).toBe(rotated.current);
    const reports = await storedReports();
    expect(fifth.spec.evidence!.previousDigest).toBe(reports[3]!.spec.evidence!.digest);
    expect(verifyReportChain(reports, await publishedRing())).toMatchObject({ ok: true, problems: [] });
  });
});

// ---------------------------------------------------------------------------- tampering

describe('tampering', () => {
  it('an edited report (deleted and re-created by an admin) and a deleted middle report are detected and named', async () => {
    const reports = await storedReports();
    expect(reports).toHaveLength(5);
    const [, second, third, fourth] = reports;
    // Edit: the second run's score, evidence block copied unchanged.
    await recreate(second!, (copy) => {
      copy.spec.score = 91;
    });
    // Delete: the third (the failed run) disappears from the record.
    await deleteReport(third!);

    const stored = await storedReports();
    expect(stored.map((report) => report.metadata.name)).toEqual(
      reports.filter((report) => report !== third).map((report) => report.metadata.name),
    );
    const verification = verifyReportChain(stored, await publishedRing());
    expect(verification.ok).toBe(false);
    expect(verification.problems).toEqual([
      expect.stringMatching(
        new RegExp(`^${second!.metadata.name}: digest mismatch: the report was changed after signing`),
      ),
      `${fourth!.metadata.name}: missing predecessor: it links to sha256:${third!.spec.evidence!.digest.slice(7, 19)}, which no report in the set has; a report between ${second!.metadata.name} and ${fourth!.metadata.name} was deleted`,
    ]);

    // The server sees the same, from its caches.
    await waitFor(
      async () => {
        const cached = rehearsal.cache.reportsOfTest(fixture.testNamespace, testName);
        const edited = cached.find((report) => report.metadata.name === second!.metadata.name);
        return cached.length === 4 && edited?.spec.score === 91;
      },
      { description: 'the cache to see the tampered reports' },
    );
    const cached = orderReportsForChain(
      rehearsal.cache.fullReportsOfTest(`${fixture.testNamespace}/${testName}`),
    );
    expect(cached.map((report) => rehearsal.evidence.problems(report).length > 0)).toEqual([
      false,
      true,
      true,
      false,
    ]);
    expect(rehearsal.evidence.problems(cached[1]!)[0]).toContain(`${second!.metadata.name}: digest mismatch`);
    expect(rehearsal.evidence.problems(cached[2]!)[0]).toContain(
      `${fourth!.metadata.name}: missing predecessor`,
    );
  });

  it('evidence that does not verify never makes a control satisfied', async () => {
    const reports = await storedReports();
    const latest = reports[reports.length - 1]!;
    // The newest run, a pass, re-created with an edited field: the latest run no longer qualifies.
    await recreate(latest, (copy) => {
      copy.spec.backup.name = 'a-different-backup';
    });
    const body = await waitFor(
      async () => {
        const { body } = await getJson<ComplianceView>('/api/v1/compliance?framework=soc2&period=30');
        const a13 = body.controls.find((control) => control.id === 'A1.3')!;
        return a13.status === 'at_risk' ? body : undefined;
      },
      // A JSON answer may be served up to COMPLIANCE_MAX_STALE_MS (30 s) old while the next is evaluated.
      { description: 'compliance to reflect the unverified evidence', timeoutMs: 60_000 },
    );
    const a13 = body.controls.find((control) => control.id === 'A1.3')!;
    expect(a13.evidence).toContain('evidence does not verify');
    expect(a13.evidence).toContain(fixture.source);

    // The enterprise PDF lists what did not verify.
    await switchLicense(await sign(vendor, { tier: 'enterprise' }), (view) => view.tier === 'enterprise');
    const pdf = await pdfStatus(`/api/v1/compliance/pdf?framework=soc2&period=30`);
    const text = pdftotext(writePdf(pdf.body, 'tampered'), '-layout').replace(/\s+/g, ' ');
    expect(text).toContain('Evidence that did not verify');
    expect(text).toContain(`${latest.metadata.name}: digest mismatch`);
    expect(text).toContain('Runs whose evidence does not verify never count as qualifying passes');
    // A test's reports are selected by the selectable field spec.test; no label is written
    // (each costs the apiserver memory per report, issue 17).
    const selected = await listReports(fixture, testName);
    expect(selected.length).toBeGreaterThan(0);
    expect(selected.every((report) => report.spec.testRef.name === testName && !report.metadata.labels?.[LABEL_TEST])).toBe(true);
  });
});
