// Compliance: a licensed page (pro or enterprise with compliancePage). The API decides: a 402
// becomes an explanation of the tier needed. Period 30/60/90 days (default 90), pass rate per
// test, every framework's controls with their evidence text, an auditors' summary table, and the
// signed PDF (enterprise with pdfExport).
import { useState } from 'preact/hooks';
import { api, ApiError, downloadUrl, unwrap, type components } from '../api.js';
import { Async, Badge, ErrorPanel, PageHeader, Segmented } from '../components/ui.js';
import { percent } from '../format.js';
import { href, useLoad } from '../hooks.js';

type Framework = components['schemas']['ComplianceResponse'];
const PERIODS = [30, 60, 90] as const;
const NAMES: Record<string, string> = {
  soc2: 'SOC 2',
  iso27001: 'ISO 27001',
  hipaa: 'HIPAA',
  dora: 'DORA',
  pcidss: 'PCI DSS',
};
const STATUS: Record<string, [string, string]> = {
  satisfied: ['satisfied', 'ok'],
  at_risk: ['at risk', 'warn'],
  not_tested: ['not tested', 'muted'],
};

export function CompliancePage() {
  const [period, setPeriod] = useState<(typeof PERIODS)[number]>(90);
  const overview = useLoad(
    async () => unwrap(await api.GET('/api/compliance', { params: { query: { period } } })),
    [period],
  );
  const license = useLoad(async () => unwrap(await api.GET('/api/v1/license')), []);
  if (overview.error instanceof ApiError && overview.error.status === 402) {
    return (
      <>
        <PageHeader title="Compliance" />
        <ErrorPanel error={overview.error}>
          <p data-testid="compliance-gate">
            The Compliance page is part of the <strong>Team (pro)</strong> and <strong>Enterprise</strong>{' '}
            tiers, with the <code>compliancePage</code> feature. Your license:{' '}
            <strong>{license.data?.tier ?? '…'}</strong>. See <a href={href('settings')}>License</a>.
          </p>
        </ErrorPanel>
      </>
    );
  }
  const pdf = license.data?.features.includes('pdfExport') ?? false;
  return (
    <>
      <PageHeader title="Compliance">
        <Segmented
          label="Period"
          options={PERIODS}
          value={period}
          onChange={setPeriod}
          format={(d) => `${d} days`}
        />
      </PageHeader>
      <Async state={overview}>
        {(o) => (
          <>
            <section class="panel">
              <h2>Summary for auditors ({o.period} days)</h2>
              <div class="table-wrap">
                <table data-testid="auditor-summary">
                  <thead>
                    <tr>
                      <th>Framework</th>
                      <th>Runs</th>
                      <th>Pass rate</th>
                      <th>Average score</th>
                      <th>RTO within SLA</th>
                      <th>Namespaces</th>
                      <th>Controls satisfied</th>
                      {pdf ? <th>Signed report</th> : null}
                    </tr>
                  </thead>
                  <tbody>
                    {o.frameworks.map((f) => (
                      <tr key={f.framework}>
                        <th scope="row">{NAMES[f.framework] ?? f.framework}</th>
                        <td>{f.totalTests}</td>
                        <td data-testid={`pass-rate-${f.framework}`}>{percent(f.passRate)}</td>
                        <td>{f.avgScore}</td>
                        <td>{percent(f.slaCompliance)}</td>
                        <td>{f.namespacesCovered}</td>
                        <td>
                          {f.controls.filter((c) => c.status === 'satisfied').length} / {f.controls.length}
                        </td>
                        {pdf ? (
                          <td>
                            <a
                              class="button"
                              download
                              href={downloadUrl('/api/v1/compliance/pdf', {
                                framework: f.framework,
                                period: o.period,
                              })}
                            >
                              Download PDF
                            </a>
                          </td>
                        ) : null}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <p class="muted">
                Generated {o.generatedAt}. Only signed reports whose evidence verifies count as evidence.
              </p>
            </section>
            <section class="panel">
              <h2>Pass rate per test</h2>
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th>Test</th>
                      <th>Runs</th>
                      <th>Pass rate</th>
                    </tr>
                  </thead>
                  <tbody>
                    {o.tests.slice(0, 200).map((t) => (
                      <tr key={`${t.namespace}/${t.name}`}>
                        <td>
                          <a href={href('tests', t.namespace, t.name)}>{t.name}</a>{' '}
                          <span class="muted">{t.namespace}</span>
                        </td>
                        <td>{t.runs}</td>
                        <td>
                          <meter min={0} max={1} value={t.passRate} aria-label={`${t.name} pass rate`} />{' '}
                          {percent(t.passRate)}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              {o.tests.length > 200 ? <p class="muted">First 200 of {o.tests.length} tests.</p> : null}
            </section>
            {o.frameworks.map((f) => (
              <FrameworkControls framework={f} key={f.framework} />
            ))}
          </>
        )}
      </Async>
    </>
  );
}

function FrameworkControls({ framework }: { framework: Framework }) {
  return (
    <section class="panel">
      <h2>{NAMES[framework.framework] ?? framework.framework} controls</h2>
      <ul class="controls">
        {framework.controls.map((c) => {
          const [label, tone] = STATUS[c.status] ?? [c.status, 'muted'];
          return (
            <li key={c.id}>
              <div>
                <strong>{c.id}</strong> {c.title} <Badge tone={tone}>{label}</Badge>
              </div>
              <p class="muted">{c.evidence}</p>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
