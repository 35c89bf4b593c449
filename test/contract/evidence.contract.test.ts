// Contract tests of the license, evidence-key and PDF operations: the real app in-process over the
// in-memory fakes, every answer checked against openapi/openapi.json (status documented, media
// type, schema, required headers). The PDFs are checked for their headers, their signature and
// their first bytes here; their content is the integration tests' and the renderer's unit tests'.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { ProblemDetails } from '../../openapi/client.js';
import type { AccessReviewer, ReviewedUser } from '../../server/api/auth/access-review.js';
import type { PermissionDescriptor } from '../../server/api/problem.js';
import type { RestoreReport } from '../../server/domain/resources/resources.js';
import { withEvidence } from '../../server/evidence/evidence.js';
import { verifyPdfAndPages } from '../helpers/pdf-pages.js';
import { generateSigningKey, publicKeyRing } from '../../server/evidence/signing-key.js';
import { ContractValidator, loadDocument } from './support/contract.js';
import { restoreReport, restoreTest } from './support/fake-cluster.js';
import { fixedLicense, keySourceOf, NOW, startTestServer, type TestServer } from './support/server.js';

const OPERATIONS = ['getLicense', 'listEvidenceKeys', 'getCompliancePdf', 'getTestReportPdf'];
const contract = new ContractValidator(loadDocument());
const key = generateSigningKey();
const retired = generateSigningKey();
const license = fixedLicense('enterprise');
let server: TestServer;

const hoursAgo = (hours: number): string => new Date(NOW.getTime() - hours * 3_600_000).toISOString();

function seed(target: TestServer): void {
  target.cluster.seedTest(restoreTest({ name: 'payments', maxRTO: '15m' }));
  target.cluster.seedTest(restoreTest({ name: 'orders', namespace: 'team-a' }));
  let previous: string | undefined;
  for (const [hours, result] of [
    [240, 'pass'],
    [120, 'fail'],
    [48, 'pass'],
    [10, 'pass'],
  ] as const) {
    // Two keys sign the history: the first run before a rotation, the rest after it.
    const signer = hours === 240 ? retired : key;
    const report = withEvidence(
      restoreReport({
        test: 'payments',
        completedAt: hoursAgo(hours),
        result,
        rtoSeconds: 600,
        rtoTarget: '15m',
      }),
      previous,
      signer,
    );
    previous = report.spec.evidence!.digest;
    target.cluster.seedReport(report);
  }
}

beforeAll(async () => {
  server = await startTestServer({ contract, license, evidenceKeys: keySourceOf(key, [retired]) });
  seed(server);
});

afterEach(() => {
  license.set('enterprise');
  expect(contract.failures.splice(0)).toEqual([]);
});

afterAll(async () => {
  await server.close();
});

function expectProblem(error: unknown, status: number, slug: string): ProblemDetails {
  const problem = error as ProblemDetails;
  expect(problem).toMatchObject({ status, type: `https://rehearsal.dev/problems/${slug}` });
  expect(typeof problem.detail).toBe('string');
  return problem;
}

async function pdfOf(response: Response): Promise<Buffer> {
  return Buffer.from(await response.arrayBuffer());
}

describe('license', () => {
  it('answers the license in effect as LicenseResponse', async () => {
    const { data } = await server.api.GET('/api/v1/license');
    expect(data).toEqual({
      tier: 'enterprise',
      expiresAt: null,
      trialEndsAt: null,
      isExpired: false,
      isTrialing: false,
      trialDaysLeft: 0,
      features: ['compliancePage', 'pdfExport', 'pdfReports'],
    });
    license.set('community', 'no license installed');
    const community = await server.api.GET('/api/v1/license');
    expect(community.data).toMatchObject({ tier: 'community', features: [] });
  });

  it('gates the dashboard compliance page on compliancePage (pro and above); the JSON API stays open', async () => {
    license.set('community', 'license signature does not verify with key vendor-2026');
    const page = await server.api.GET('/api/compliance', { params: { query: { period: 30 } } });
    const problem = expectProblem(page.error, 402, 'license-required');
    expect(problem.detail).toContain('compliancePage');
    expect(problem.detail).toContain('license signature does not verify');
    const api = await server.api.GET('/api/v1/compliance', {
      params: { query: { framework: 'soc2', period: 30 } },
    });
    expect(api.response.status).toBe(200);
    license.set('pro');
    expect(
      (await server.api.GET('/api/compliance', { params: { query: { period: 30 } } })).response.status,
    ).toBe(200);
  });
});

describe('evidence keys', () => {
  it('lists the current key first, then retired ones', async () => {
    const { data } = await server.api.GET('/api/v1/evidence/keys');
    expect(data!.map((entry) => [entry.keyId, entry.status])).toEqual([
      [key.keyId, 'current'],
      [retired.keyId, 'retired'],
    ]);
    expect(data![0]!.publicKeyPem).toContain('BEGIN PUBLIC KEY');
    expect(data![1]!.retiredAt).toBeDefined();
    // The published PEMs verify evidence signed by the keys they name.
    expect([...publicKeyRing(data!.map((entry) => entry.publicKeyPem)).keys()].sort()).toEqual(
      [key.keyId, retired.keyId].sort(),
    );
  });

  it('answers 503 before any key is loaded', async () => {
    const bare = await startTestServer({ contract, evidenceKeys: null });
    try {
      expectProblem((await bare.api.GET('/api/v1/evidence/keys')).error, 503, 'signing-key-unavailable');
    } finally {
      await bare.close();
    }
  });
});

describe('compliance PDF', () => {
  it('answers a signed PDF attachment on enterprise', async () => {
    const response = await server.fetch('/api/v1/compliance/pdf?framework=soc2&period=30');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(response.headers.get('content-disposition')).toBe(
      'attachment; filename="rehearsal-compliance-soc2-30d.pdf"',
    );
    const pdf = await pdfOf(response);
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(Number(response.headers.get('content-length'))).toBe(pdf.length);
    const verification = await verifyPdfAndPages(pdf, publicKeyRing([key.publicKey]));
    expect(verification).toMatchObject({ ok: true, contentCheck: 'identical' });
    expect(verification.attestation).toMatchObject({ kind: 'compliance', keyId: key.keyId, runs: 4 });
  });

  it('is reachable through the typed client as a blob', async () => {
    const { data, response } = await server.api.GET('/api/v1/compliance/pdf', {
      params: { query: { framework: 'dora', period: 90 } },
      parseAs: 'arrayBuffer',
    });
    expect(response.status).toBe(200);
    expect(
      Buffer.from(data as ArrayBuffer)
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
  });

  it.each([
    ['community', 'no license installed'],
    ['pro', undefined],
  ] as const)('answers 402 on %s', async (tier, reason) => {
    license.set(tier, reason);
    const { error, response } = await server.api.GET('/api/v1/compliance/pdf', {
      params: { query: { framework: 'soc2', period: 30 } },
    });
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = expectProblem(error, 402, 'license-required');
    expect(problem.detail).toContain('enterprise');
    expect(problem.detail).toContain('pdfExport');
  });

  it('answers 400 like the JSON endpoint, before looking at the license', async () => {
    license.set('community');
    const unknown = await server.api.GET('/api/v1/compliance/pdf', {
      params: { query: { framework: 'nist' as never, period: 30 } },
    });
    expect(expectProblem(unknown.error, 400, 'invalid-request').errors![0]!.field).toBe('framework');
    const missing = await server.api.GET('/api/v1/compliance/pdf', { params: { query: {} as never } });
    expect(
      expectProblem(missing.error, 400, 'invalid-request')
        .errors!.map((each) => each.field)
        .sort(),
    ).toEqual(['framework', 'period']);
  });

  it('renders at most two PDFs at once; the others get 503 pdf-busy with Retry-After', async () => {
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        i % 2 === 0
          ? server.fetch('/api/v1/compliance/pdf?framework=soc2&period=30')
          : server.fetch('/api/restore-tests/payments/report.pdf?period=30'),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(2);
    for (const response of responses) {
      if (response.status === 200) {
        await response.arrayBuffer();
        continue;
      }
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expectProblem(await response.json(), 503, 'pdf-busy');
    }
    // The slots are free again afterwards.
    expect((await server.fetch('/api/v1/compliance/pdf?framework=soc2&period=30')).status).toBe(200);
  });

  it('answers 503 while no signing key is loaded', async () => {
    const bare = await startTestServer({ contract, evidenceKeys: null });
    try {
      const { error } = await bare.api.GET('/api/v1/compliance/pdf', {
        params: { query: { framework: 'soc2', period: 30 } },
      });
      expectProblem(error, 503, 'signing-key-unavailable');
    } finally {
      await bare.close();
    }
  });
});

describe('test report PDF', () => {
  it('answers a signed PDF attachment whose chain summary covers both keys', async () => {
    const response = await server.fetch('/api/restore-tests/payments/report.pdf?period=30');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(response.headers.get('content-disposition')).toBe(
      'attachment; filename="rehearsal-test-rehearsal-system-payments-30d.pdf"',
    );
    const pdf = await pdfOf(response);
    const verification = await verifyPdfAndPages(pdf, publicKeyRing([key.publicKey]));
    expect(verification).toMatchObject({ ok: true });
    const report = verification.evidence!.report as {
      kind: string;
      runs: { evidenceVerified?: boolean }[];
      chain?: unknown;
    };
    expect(report.kind).toBe('test');
    expect(report.runs.map((run) => run.evidenceVerified)).toEqual([true, true, true, true]);
    expect(report.chain).toEqual({ checkedReports: 4, verifiedReports: 4, problems: [] });
  });

  it('uses the namespace query and defaults the period to 90 days', async () => {
    const response = await server.fetch('/api/restore-tests/orders/report.pdf?namespace=team-a');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toContain('rehearsal-test-team-a-orders-90d.pdf');
  });

  it('answers 402 without pdfReports, 404 for an unknown test, 400 for malformed input', async () => {
    license.set('pro');
    const unlicensed = await server.api.GET('/api/restore-tests/{name}/report.pdf', {
      params: { path: { name: 'payments' } },
    });
    expect(expectProblem(unlicensed.error, 402, 'license-required').detail).toContain('pdfReports');
    license.set('enterprise');
    const unknown = await server.api.GET('/api/restore-tests/{name}/report.pdf', {
      params: { path: { name: 'nope' } },
    });
    expect(expectProblem(unknown.error, 404, 'not-found').detail).toContain('"nope"');
    const malformed = await server.api.GET('/api/restore-tests/{name}/report.pdf', {
      params: { path: { name: 'Not_A_Name' }, query: { period: 0 } },
    });
    expect(
      expectProblem(malformed.error, 400, 'invalid-request')
        .errors!.map((each) => each.field)
        .sort(),
    ).toEqual(['name', 'period']);
  });

  it('marks a report whose content was edited after signing, and names it', async () => {
    const target = await startTestServer({ contract, evidenceKeys: keySourceOf(key) });
    try {
      target.cluster.seedTest(restoreTest({ name: 'ledger' }));
      let previous: string | undefined;
      const reports: RestoreReport[] = [];
      for (const hours of [50, 30, 10]) {
        const report = withEvidence(
          restoreReport({ test: 'ledger', completedAt: hoursAgo(hours) }),
          previous,
          key,
        );
        previous = report.spec.evidence!.digest;
        reports.push(report);
      }
      reports[1]!.spec.score = 100; // edited after signing
      for (const report of reports) target.cluster.seedReport(report);
      const pdf = await pdfOf(await target.fetch('/api/restore-tests/ledger/report.pdf'));
      const evidence = (await verifyPdfAndPages(pdf, publicKeyRing([key.publicKey]))).evidence!.report as {
        chain: { verifiedReports: number; problems: string[] };
      };
      expect(evidence.chain.verifiedReports).toBe(2);
      expect(evidence.chain.problems).toEqual([
        expect.stringMatching(new RegExp(`^${reports[1]!.metadata.name}: digest mismatch`)),
      ]);
    } finally {
      await target.close();
    }
  });
});

class DenyingReviewer implements AccessReviewer {
  readonly asked: PermissionDescriptor[] = [];
  async reviewToken(token: string): Promise<ReviewedUser | null> {
    return token === 'auditor-token' ? { username: 'auditor', groups: ['system:authenticated'] } : null;
  }
  async reviewAccess(_user: ReviewedUser, permission: PermissionDescriptor): Promise<{ allowed: boolean }> {
    this.asked.push(permission);
    return { allowed: permission.resource === 'configmaps' };
  }
}

describe('authorization', () => {
  it('asks for the declared permissions: keys = get on the published ConfigMap; the rest 401/403', async () => {
    const reviewer = new DenyingReviewer();
    const secured = await startTestServer({
      contract,
      authMode: 'kubernetes',
      reviewer,
      token: 'auditor-token',
    });
    try {
      const keys = await secured.api.GET('/api/v1/evidence/keys');
      expect(keys.response.status).toBe(200);
      expect(reviewer.asked).toEqual([
        {
          verb: 'get',
          group: '',
          resource: 'configmaps',
          namespace: 'rehearsal-system',
          name: 'rehearsal-evidence-public-keys',
        },
      ]);
      expectProblem((await secured.api.GET('/api/v1/license')).error, 403, 'forbidden');
      const pdf = await secured.api.GET('/api/restore-tests/{name}/report.pdf', {
        params: { path: { name: 'payments' }, query: { namespace: 'team-a' } },
      });
      expect(expectProblem(pdf.error, 403, 'forbidden').missingPermissions).toEqual([
        {
          verb: 'get',
          group: 'rehearsal.dev',
          resource: 'restoretests',
          namespace: 'team-a',
          name: 'payments',
        },
        { verb: 'list', group: 'rehearsal.dev', resource: 'restorereports', namespace: 'team-a' },
      ]);
      const anonymous = await secured.rawFetch('/api/v1/compliance/pdf?framework=soc2&period=30');
      expect(anonymous.status).toBe(401);
      contract.check({
        method: 'GET',
        url: `${secured.baseUrl}/api/v1/compliance/pdf?framework=soc2&period=30`,
        status: anonymous.status,
        contentType: anonymous.headers.get('content-type'),
        headers: anonymous.headers,
        body: await anonymous.text(),
      });
    } finally {
      await secured.close();
    }
  });
});

describe('the contract of these operations', () => {
  it('every one was exercised, with success and error answers', () => {
    for (const id of OPERATIONS) {
      const statuses = [...(contract.exercised.get(id) ?? [])];
      expect({ id, success: statuses.some((s) => s < 300), error: statuses.some((s) => s >= 400) }).toEqual({
        id,
        success: true,
        error: true,
      });
    }
  });
});
