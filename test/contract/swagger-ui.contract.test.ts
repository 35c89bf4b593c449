// Swagger UI at /docs in a real browser. Headless Chromium (Debian's chromium-headless-shell,
// installed by test/setup.sh) loads the page from the in-process server, runs Swagger UI's
// JavaScript, which fetches /openapi.json and renders it; the assertions read the DOM Chromium
// dumps after that. The HTML the server sends has no operations in it, so only a page that really
// rendered the spec passes.
//
// docs/swagger-ui.png was taken the same way, with `--window-size=1280,2000 --screenshot=FILE`
// in place of `--dump-dom`.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadDocument } from './support/contract.js';
import { startTestServer, type TestServer } from './support/server.js';

// The old headless shell, not the `chromium` browser: it has no sign-in, component updater or
// other Google services that try to reach the internet.
const BROWSER = 'chromium-headless-shell';
const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** `METHOD path` of every operation in openapi/openapi.json, sorted. */
function specOperations(): string[] {
  const document = loadDocument();
  return Object.entries(document.paths)
    .flatMap(([path, item]) =>
      Object.keys(item)
        .filter((method) => HTTP_METHODS.has(method))
        .map((method) => `${method.toUpperCase()} ${path}`),
    )
    .sort();
}

const decodeEntities = (text: string): string =>
  text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');

const textOf = (html: string): string =>
  decodeEntities(html.replace(/<[^>]*>/g, ' '))
    .replace(/\s+/g, ' ')
    .trim();

/** `METHOD path` of every operation Swagger UI rendered (the summary bar of each block), sorted. */
function renderedOperations(html: string): string[] {
  const summary =
    /class="opblock-summary-method">([A-Z]+)<\/span>(?:(?!opblock-summary-method)[\s\S])*?class="opblock-summary-path" data-path="([^"]*)"/g;
  return [...html.matchAll(summary)].map(([, method, path]) => `${method} ${decodeEntities(path!)}`).sort();
}

/** The title and version in the heading Swagger UI renders from the spec's info, if any. */
function renderedInfo(html: string): { title: string; version: string } | undefined {
  const heading = /class="title">([^<]*)<span><small><pre class="version">([^<]*)<\/pre>/.exec(html);
  return heading ? { title: textOf(heading[1]!), version: textOf(heading[2]!) } : undefined;
}

/** What Swagger UI shows when loading or rendering the spec failed, as text. */
function renderedErrors(html: string): string[] {
  return [
    ...html.matchAll(
      /<h4 class="title">Failed to load API definition\.<\/h4>|<pre class="errors-wrapper">[\s\S]*?<\/pre>/g,
    ),
  ].map(([error]) => textOf(error));
}

/** Loads `url` in headless Chromium and returns the DOM after the page's scripts have run. */
async function renderInBrowser(url: string): Promise<string> {
  const profile = await mkdtemp(join(tmpdir(), 'rehearsal-chromium-'));
  const args = [
    '--no-sandbox', // tests may run as root, where Chromium's sandbox refuses to start
    '--disable-gpu',
    `--user-data-dir=${profile}`,
    // Resolve nothing but 127.0.0.1: the page must need no CDN, and nothing leaves the machine.
    '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
    // Virtual time advances only while the page is idle and no request is pending, so the budget
    // is spent after Swagger UI has fetched the spec and rendered, however loaded the machine is.
    '--virtual-time-budget=30000',
    '--dump-dom',
    url,
  ];
  try {
    return await new Promise<string>((resolve, reject) => {
      execFile(
        BROWSER,
        args,
        { timeout: 90_000, killSignal: 'SIGKILL', maxBuffer: 64 * 1024 * 1024 },
        (error, stdout, stderr) => {
          if ((error as NodeJS.ErrnoException | null)?.code === 'ENOENT') {
            reject(
              new Error(
                `${BROWSER} is not installed: the Swagger UI test needs the Debian package ` +
                  `${BROWSER} (bash test/setup.sh installs it)`,
              ),
            );
          } else if (error) {
            reject(new Error(`${BROWSER} failed (${error.message}); its stderr:\n${stderr}`));
          } else {
            resolve(stdout);
          }
        },
      );
    });
  } finally {
    await rm(profile, { recursive: true, force: true });
  }
}

describe('Swagger UI at /docs in headless Chromium', () => {
  let server: TestServer;
  let dom: string;

  beforeAll(async () => {
    server = await startTestServer();
    // /docs, not /docs/: the redirect a person's browser follows is part of what is tested.
    dom = await renderInBrowser(`${server.baseUrl}/docs`);
  }, 120_000);

  afterAll(async () => {
    await server?.close();
  });

  it('renders the title and version from the spec, without errors', () => {
    const { title, version } = loadDocument()['info'] as { title: string; version: string };
    expect(renderedErrors(dom)).toEqual([]);
    expect(renderedInfo(dom)).toEqual({ title, version });
  });

  it('renders every operation of openapi/openapi.json, and nothing else', () => {
    const expected = specOperations();
    const rendered = renderedOperations(dom);
    expect(rendered).toHaveLength(expected.length);
    expect(rendered).toEqual(expected);
    expect(rendered).toEqual(
      expect.arrayContaining(['GET /api/v1/tests', 'POST /api/v1/tests', 'GET /api/v1/compliance']),
    );
  });

  it("the operations come from Swagger UI's rendering, not from the HTML the server sends", async () => {
    const served = await (await server.rawFetch('/docs/')).text();
    expect(served).toContain('swagger-ui');
    expect(renderedOperations(served)).toEqual([]);
    expect(renderedInfo(served)).toBeUndefined();
  });
});
