// License (tier, expiry, trial, enabled features) and settings (theme, the session's token).
import { api, storedToken, storeToken, unwrap, viaAggregation } from '../api.js';
import { Async, PageHeader, Segmented } from '../components/ui.js';
import { dateTime } from '../format.js';
import { useLoad } from '../hooks.js';
import { useTheme, type Theme } from '../theme.js';

const FEATURES: Record<string, string> = {
  compliancePage: 'Compliance page',
  pdfExport: 'Signed compliance PDFs',
  pdfReports: 'Signed per-test PDF reports',
};

export function SettingsPage() {
  const license = useLoad(async () => unwrap(await api.GET('/api/v1/license')), []);
  const [theme, setTheme] = useTheme();
  return (
    <>
      <PageHeader title="License and settings" />
      <section class="panel">
        <h2>License</h2>
        <Async state={license}>
          {(l) => (
            <dl class="facts">
              <dt>Tier</dt>
              <dd data-testid="license-tier">{l.tier === 'pro' ? 'Team (pro)' : l.tier}</dd>
              <dt>Expires</dt>
              <dd>
                {l.expiresAt ? dateTime(l.expiresAt) : 'never (perpetual)'}
                {l.isExpired ? ' — expired, running as community' : ''}
              </dd>
              <dt>Trial</dt>
              <dd>
                {l.isTrialing ? `${l.trialDaysLeft} days left (ends ${dateTime(l.trialEndsAt)})` : 'no'}
              </dd>
              <dt>Features</dt>
              <dd>
                <ul class="plain">
                  {Object.entries(FEATURES).map(([flag, label]) => (
                    <li key={flag}>
                      {l.features.includes(flag) ? '✔' : '✘'} {label} <code>{flag}</code>
                    </li>
                  ))}
                </ul>
              </dd>
            </dl>
          )}
        </Async>
      </section>
      <section class="panel">
        <h2>Appearance</h2>
        <Segmented<Theme> label="Theme" options={['light', 'dark']} value={theme} onChange={setTheme} />
      </section>
      {!viaAggregation && storedToken() ? (
        <section class="panel">
          <h2>Session</h2>
          <p>A bearer token is kept for this browser tab only (session storage).</p>
          <button type="button" onClick={() => (storeToken(undefined), location.reload())}>
            Forget the token
          </button>
        </section>
      ) : null}
    </>
  );
}
