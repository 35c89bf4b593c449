// Issue 32, restore a subset: the per-test PDF says what part of the backup the test restores, in a
// "Restored subset" line of the test definition, read back from a real rendered PDF with pdftotext;
// a test that restores whole namespaces gets no such line. The subset is part of the signed
// evidence, so the pages still re-render byte for byte from it.
import { beforeAll, describe, expect, it, jest } from '@jest/globals';
import { generateSigningKey, publicKeyRing } from '../../../server/evidence/signing-key.js';
import { buildTestReportData } from '../../../server/pdf/test-report-data.js';
import { renderTestReport } from '../../../server/pdf/test-report.pdf.js';
import type { RestoreTest } from '../../../server/domain/resources/resources.js';
import { GENERATED_AT, makeRestoreTest, makeSignedHistory, PERIOD_END, PERIOD_START } from '../../fixtures/evidence/reports.js';
import { assertPoppler, pdftotext, writePdf } from '../../fixtures/evidence/poppler.js';
import { verifyPdfAndPages } from '../../helpers/pdf-pages.js';

jest.setTimeout(60_000);
const key = generateSigningKey();

function testWith(backupSource: Partial<RestoreTest['spec']['backupSource']>): RestoreTest {
  const test = makeRestoreTest('orders-nightly', ['shop'], { maxRTO: '15m' });
  test.spec.backupSource = { ...test.spec.backupSource, ...backupSource };
  return test;
}

async function render(test: RestoreTest, name: string): Promise<{ pdf: Buffer; flat: string; subset: unknown }> {
  const reports = makeSignedHistory(test, 3, PERIOD_START, key, () => ({ result: 'pass', rtoSeconds: 300 }));
  const data = buildTestReportData({
    reportId: `RHR-TEST-${name}`,
    generatedAt: GENERATED_AT,
    productVersion: '0.1.0',
    period: { days: 90, from: PERIOD_START.toISOString(), to: PERIOD_END },
    test,
    reports,
  });
  const pdf = await renderTestReport(data, key);
  const flat = pdftotext(writePdf(pdf, name), '-layout').replace(/\s+/g, ' ');
  return { pdf, flat, subset: data.test.backupSource.subset };
}

beforeAll(() => assertPoppler());

describe('the per-test PDF: the restored subset', () => {
  it('names the selector and the kinds a subset test restores', async () => {
    const labelSelector = { matchLabels: { app: 'orders' } };
    const includedResources = [
      { group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments' },
      { version: 'v1', kind: 'Service', resource: 'services' },
    ];
    const { pdf, flat, subset } = await render(testWith({ labelSelector, includedResources }), 'subset-both');
    expect(flat).toContain('Restored subset app=orders; kinds: Deployment, Service');
    expect(subset).toEqual({ labelSelector, includedResources });
    expect(await verifyPdfAndPages(pdf, publicKeyRing([key.publicKey]))).toMatchObject({ ok: true, contentCheck: 'identical' });
  });

  it('says only what the test limits: a selector with expressions, or kinds alone', async () => {
    const selectorOnly = await render(
      testWith({ labelSelector: { matchLabels: { tier: 'web', app: 'shop' }, matchExpressions: [{ key: 'legacy', operator: 'DoesNotExist' }] } }),
      'subset-selector',
    );
    expect(selectorOnly.flat).toContain('Restored subset app=shop,tier=web,!legacy');
    expect(selectorOnly.flat).not.toContain('kinds:');
    const kindsOnly = await render(testWith({ includedResources: [{ group: 'apps', version: 'v1', kind: 'StatefulSet', resource: 'statefulsets' }] }), 'subset-kinds');
    expect(kindsOnly.flat).toContain('Restored subset kinds: StatefulSet');
  });

  it('prints no subset line for a test that restores whole namespaces (an empty selector selects everything)', async () => {
    const cases: [string, Partial<RestoreTest['spec']['backupSource']>][] = [
      ['subset-none', {}],
      ['subset-empty', { labelSelector: {}, includedResources: [] }],
    ];
    for (const [name, backupSource] of cases) {
      const { flat, subset } = await render(testWith(backupSource), name);
      expect(flat).toContain('Source namespaces shop');
      expect(flat).not.toContain('Restored subset');
      expect(subset).toBeUndefined();
    }
  });
});
