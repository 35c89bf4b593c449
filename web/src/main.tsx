// The dashboard's shell: navigation, theme switch, the token prompt, and the page of the route.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { onUnauthenticated, storedToken, storeToken, viaAggregation } from './api.js';
import { CommandPalette } from './components/command-palette.js';
import { PageHeader } from './components/ui.js';
import { href, useRoute } from './hooks.js';
import { OmittedNote } from './components/omitted-note.js';
import { AlertsPage, UpcomingPage } from './pages/alerts.js';
import { CompliancePage } from './pages/compliance.js';
import { CoveragePage } from './pages/coverage.js';
import { OverviewPage } from './pages/overview.js';
import { ReportsPage } from './pages/reports.js';
import { SettingsPage } from './pages/settings.js';
import { TestDetailPage } from './pages/test-detail.js';
import { EditTestPage, TestFormPage } from './pages/test-form.js';
import { TestsPage } from './pages/tests.js';
import { useTheme } from './theme.js';
import './styles.css';

const NAV: [string, string][] = [
  ['overview', 'Overview'],
  ['tests', 'Tests'],
  ['coverage', 'Coverage'],
  ['reports', 'Reports'],
  ['alerts', 'Alerts'],
  ['upcoming', 'Upcoming'],
  ['compliance', 'Compliance'],
  ['settings', 'License & settings'],
];
/** What the command palette offers besides the tests: the pages, and the form for a new test. */
const PALETTE_PAGES: [string, string][] = [...NAV, ['new-test', 'New test']];

function Page({ page, params }: { page: string; params: string[] }) {
  const [namespace = '', name = ''] = params;
  switch (page) {
    case 'overview':
      return <OverviewPage />;
    case 'tests':
      return name ? <TestDetailPage namespace={namespace} name={name} /> : <TestsPage />;
    case 'new-test':
      return <TestFormPage />;
    case 'edit-test':
      return <EditTestPage namespace={namespace} name={name} />;
    case 'coverage':
      return <CoveragePage />;
    case 'reports':
      return <ReportsPage />;
    case 'alerts':
      return <AlertsPage />;
    case 'upcoming':
      return <UpcomingPage />;
    case 'compliance':
      return <CompliancePage />;
    case 'settings':
      return <SettingsPage />;
    default:
      return (
        <>
          <PageHeader title="Not found" />
          <p role="alert">
            There is no page “{page}”. <a href={href('overview')}>Go to the overview</a>.
          </p>
        </>
      );
  }
}

/** Asks for a bearer token when the server (port 8080, REHEARSAL_AUTH_MODE=kubernetes) answers 401. */
function TokenPrompt({ onSaved }: { onSaved: () => void }) {
  const [token, setToken] = useState('');
  return (
    <form
      class="panel token"
      onSubmit={(e) => {
        e.preventDefault();
        storeToken(token.trim());
        onSaved();
      }}
    >
      <h2>Sign in with a Kubernetes token</h2>
      <p>
        {storedToken() ? 'The token was not accepted. ' : ''}This server checks every request with TokenReview
        and RBAC. Paste a bearer token meant for Rehearsal (for example{' '}
        <code>kubectl create token my-user --audience rehearsal.dev</code>); it is kept in this tab's session
        storage only and sent only to this server. Or open the dashboard with <code>kubectl restoretest dashboard</code>
        , which uses your kubeconfig.
      </p>
      <label for="token">Bearer token</label>
      <input
        id="token"
        type="password"
        autocomplete="off"
        value={token}
        onInput={(e) => setToken(e.currentTarget.value)}
      />
      <button type="submit" class="primary">
        Sign in
      </button>
    </form>
  );
}

function App() {
  const route = useRoute();
  const [theme, setTheme] = useTheme();
  const [needToken, setNeedToken] = useState(false);
  const [generation, setGeneration] = useState(0);
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => onUnauthenticated(() => !viaAggregation && setNeedToken(true)), []);
  useEffect(() => setMenuOpen(false), [route.page, route.params.join('/')]);
  const active = route.page === 'new-test' || route.page === 'edit-test' ? 'tests' : route.page;
  return (
    <div class="layout">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <button
          type="button"
          class="menu"
          aria-expanded={menuOpen}
          aria-controls="nav"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          Menu
        </button>
        <a class="brand" href={href('overview')}>
          Rehearsal
        </a>
        <CommandPalette pages={PALETTE_PAGES} />
        <button
          type="button"
          class="theme"
          aria-label={`Switch to ${theme === 'dark' ? 'light' : 'dark'} theme`}
          onClick={() => setTheme(theme === 'dark' ? 'light' : 'dark')}
        >
          {theme === 'dark' ? '☀ Light' : '☾ Dark'}
        </button>
      </header>
      <nav id="nav" class={menuOpen ? 'sidebar open' : 'sidebar'} aria-label="Pages">
        <ul>
          {NAV.map(([page, label]) => (
            <li key={page}>
              <a href={href(page)} aria-current={active === page ? 'page' : undefined}>
                {label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        {needToken ? (
          <TokenPrompt
            onSaved={() => {
              setNeedToken(false);
              setGeneration((g) => g + 1);
            }}
          />
        ) : (
          <>
            <OmittedNote key={`note:${generation}:${route.page}:${route.params.join('/')}`} />
            <Page
              key={`${generation}:${route.page}:${route.params.join('/')}`}
              page={route.page}
              params={route.params}
            />
          </>
        )}
      </main>
    </div>
  );
}

render(<App />, document.getElementById('app')!);
