// Security headers on every answer of the HTTP app (issue 26): nothing can be framed, sniffed or
// leak its URL as a Referer, and each kind of page gets the narrowest CSP that still runs it. The
// dashboard and Swagger UI are rendered in headless Chromium under their policies: a policy that
// blocked their own scripts would leave them blank, so this also proves the policies fit the pages.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { dashboardDirectory } from '../../server/api/dashboard-assets.js';
import { inlineScriptHashes } from '../../server/api/security-headers.js';
import { startTestServer, type TestServer } from './support/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});

afterAll(async () => {
  await server?.close();
});

async function headersOf(path: string): Promise<Headers> {
  const response = await server.rawFetch(path);
  await response.arrayBuffer();
  return response.headers;
}

function directives(policy: string | null): Map<string, string> {
  return new Map((policy ?? '').split(';').map((part) => part.trim().split(/\s+(.*)/s).slice(0, 2) as [string, string]));
}

describe('security headers', () => {
  const directory = dashboardDirectory();
  const asset = directory ? /src="\.\/(app-[\w-]+\.js)"/.exec(readFileSync(join(directory, 'index.html'), 'utf8'))?.[1] : undefined;

  it.each(['/api/v1/health', '/api/v1/tests', '/api/v1/no-such-thing', '/openapi.json', '/metrics', '/docs/', '/', '/index.html'])(
    '%s: not frameable, not sniffable, no Referer, a CSP',
    async (path) => {
      const headers = await headersOf(path);
      expect(headers.get('x-content-type-options')).toBe('nosniff');
      expect(headers.get('referrer-policy')).toBe('no-referrer');
      expect(headers.get('x-frame-options')).toBe('DENY');
      const policy = directives(headers.get('content-security-policy'));
      expect(policy.get('frame-ancestors')).toBe("'none'");
      expect(policy.get('default-src')).toBe("'none'");
    },
  );

  it('API answers load nothing', async () => {
    expect(directives((await headersOf('/api/v1/tests')).get('content-security-policy')).get('script-src')).toBeUndefined();
  });

  it("the dashboard runs its own files and exactly index.html's inline script", async () => {
    expect(directory).toBeDefined(); // npm run build:web
    const html = readFileSync(join(directory!, 'index.html'), 'utf8');
    const policy = directives((await headersOf('/')).get('content-security-policy'));
    expect(policy.get('script-src')).toBe(["'self'", ...inlineScriptHashes(html)].join(' '));
    expect(inlineScriptHashes(html)).toHaveLength(1);
    expect(policy.get('connect-src')).toBe("'self'");
    expect(directives((await headersOf(`/${asset}`)).get('content-security-policy')).get('script-src')).toBe(policy.get('script-src'));
  });

  it('the dashboard renders under its policy in headless Chromium (the theme script ran, the app mounted)', async () => {
    const dom = await renderInBrowser(`${server.baseUrl}/`);
    expect(dom).toMatch(/<html[^>]*data-theme="(light|dark)"/);
    expect(dom).toMatch(/<div id="app"><[a-z]/);
  }, 120_000);
});

/** The DOM after the page's scripts ran, in headless Chromium with nothing but 127.0.0.1 reachable. */
async function renderInBrowser(url: string): Promise<string> {
  const profile = await mkdtemp(join(tmpdir(), 'rehearsal-chromium-'));
  try {
    return await new Promise<string>((resolve, reject) => {
      execFile(
        'chromium-headless-shell',
        [
          '--no-sandbox',
          '--disable-gpu',
          `--user-data-dir=${profile}`,
          '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
          '--virtual-time-budget=20000',
          '--dump-dom',
          url,
        ],
        { timeout: 90_000, killSignal: 'SIGKILL', maxBuffer: 64 * 1024 * 1024 },
        (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)),
      );
    });
  } finally {
    await rm(profile, { recursive: true, force: true });
  }
}
