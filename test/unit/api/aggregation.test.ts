// The aggregation listener over real TLS on 127.0.0.1 (certificates made with openssl): discovery
// documents, the path mapping onto the app, and front-proxy trust — X-Remote-* headers count only
// with a client certificate from the request-header CA whose name is allowed.
import { execFileSync } from 'node:child_process';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { request } from 'node:https';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pino from 'pino';
import { localPathOf, startAggregationServer, type AggregationServer } from '../../../server/api/aggregation.js';
import { frontProxyUserOf, requestHeaderSettingsOf, type RequestHeaderSettings } from '../../../server/api/auth/front-proxy.js';

let dir: string;
let server: AggregationServer;
let settings: RequestHeaderSettings | undefined;
const onChange: (() => void)[] = [];

function openssl(...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
}

/** A CA, and certificates it signs: name → CN, with serverAuth or clientAuth. */
function makeCa(ca: string): void {
  openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${ca}.key`);
  openssl('req', '-x509', '-new', '-key', `${ca}.key`, '-subj', `/CN=${ca}`, '-days', '1', '-out', `${ca}.crt`,
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign');
}
function issue(ca: string, name: string, cn: string, usage: 'serverAuth' | 'clientAuth'): void {
  openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${name}.key`);
  openssl('req', '-new', '-key', `${name}.key`, '-subj', `/CN=${cn}`, '-out', `${name}.csr`);
  writeFileSync(path.join(dir, `${name}.ext`), `basicConstraints=CA:FALSE\nextendedKeyUsage=${usage}\n${usage === 'serverAuth' ? 'subjectAltName=DNS:rehearsal-api.rehearsal-system.svc\n' : ''}`);
  openssl('x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.crt`, '-CAkey', `${ca}.key`, '-CAcreateserial', '-days', '1', '-out', `${name}.crt`, '-extfile', `${name}.ext`);
}
const read = (file: string) => readFileSync(path.join(dir, file), 'utf8');

interface Answer {
  status: number;
  body: string;
  location?: string;
  headers: IncomingHttpHeaders;
}

function get(pathname: string, options: { client?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const call = request(
      {
        host: '127.0.0.1',
        port: server.port(),
        path: pathname,
        servername: 'rehearsal-api.rehearsal-system.svc',
        ca: read('serving-ca.crt'),
        ...(options.client ? { cert: read(`${options.client}.crt`), key: read(`${options.client}.key`) } : {}),
        headers: options.headers ?? {},
        agent: false,
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, body, location: response.headers.location, headers: response.headers }));
      },
    );
    call.on('error', reject);
    call.end();
  });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'rehearsal-aggregation-'));
  makeCa('serving-ca');
  issue('serving-ca', 'serving', 'rehearsal-api.rehearsal-system.svc', 'serverAuth');
  makeCa('front-proxy-ca');
  issue('front-proxy-ca', 'front-proxy', 'front-proxy-client', 'clientAuth');
  issue('front-proxy-ca', 'other-name', 'test-admin', 'clientAuth');
  makeCa('stranger-ca');
  issue('stranger-ca', 'stranger', 'front-proxy-client', 'clientAuth');
  settings = requestHeaderSettingsOf({
    'requestheader-client-ca-file': read('front-proxy-ca.crt'),
    'requestheader-allowed-names': '["front-proxy-client"]',
    'requestheader-username-headers': '["X-Remote-User"]',
    'requestheader-group-headers': '["X-Remote-Group"]',
    'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
  });
  // The app behind it: echoes the path it was given and the user it sees.
  const app = (incoming: IncomingMessage, response: ServerResponse) => {
    response.writeHead(200, { 'Content-Type': 'application/json' });
    response.end(
      JSON.stringify({
        url: incoming.url,
        originalUrl: (incoming as IncomingMessage & { originalUrl?: string }).originalUrl,
        user: frontProxyUserOf(incoming) ?? null,
      }),
    );
  };
  server = await startAggregationServer({
    app,
    host: '127.0.0.1',
    port: 0,
    tls: { certFile: path.join(dir, 'serving.crt'), keyFile: path.join(dir, 'serving.key') },
    requestHeader: () => settings,
    onRequestHeaderChange: (listener) => onChange.push(listener),
    log: pino({ level: 'silent' }),
  });
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the aggregation listener', () => {
  it('serves discovery to the front proxy: APIResourceList with no resources, APIGroup, APIGroupList', async () => {
    const version = await get('/apis/api.rehearsal.dev/v1', { client: 'front-proxy', headers: { 'X-Remote-User': 'system:kube-aggregator' } });
    expect(version.status).toBe(200);
    expect(JSON.parse(version.body)).toEqual({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'api.rehearsal.dev/v1', resources: [] });
    const group = JSON.parse((await get('/apis/api.rehearsal.dev', { client: 'front-proxy', headers: { 'X-Remote-User': 'x' } })).body);
    expect(group).toMatchObject({ kind: 'APIGroup', name: 'api.rehearsal.dev', preferredVersion: { groupVersion: 'api.rehearsal.dev/v1' } });
    const groups = JSON.parse((await get('/apis', { client: 'front-proxy', headers: { 'X-Remote-User': 'x' } })).body);
    expect(groups).toMatchObject({ kind: 'APIGroupList', groups: [{ name: 'api.rehearsal.dev' }] });
    // Its own answers carry the security headers of every other answer (issue 26).
    expect(version.headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY', 'referrer-policy': 'no-referrer' });
    expect(version.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  });

  it('hands API paths to the app with the user the front proxy names', async () => {
    const answer = await get('/apis/api.rehearsal.dev/v1/tests/shop?namespace=team-a', {
      client: 'front-proxy',
      headers: { 'X-Remote-User': 'jane', 'X-Remote-Group': 'devs', 'X-Remote-Extra-Scopes': 'view' },
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({
      url: '/api/v1/tests/shop?namespace=team-a',
      // What Express keeps as originalUrl, and problem bodies name as their instance.
      originalUrl: '/apis/api.rehearsal.dev/v1/tests/shop?namespace=team-a',
      user: { username: 'jane', groups: ['devs'], extra: { scopes: ['view'] } },
    });
  });

  it.each([
    ['no client certificate', undefined],
    ['a certificate from another CA, with the allowed name', 'stranger'],
    ['a request-header CA certificate with a name that is not allowed', 'other-name'],
  ])('401 with forged X-Remote-User headers and %s', async (_case, client) => {
    const answer = await get('/apis/api.rehearsal.dev/v1/tests', {
      ...(client ? { client } : {}),
      headers: { 'X-Remote-User': 'admin', 'X-Remote-Group': 'system:masters' },
    });
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toMatchObject({ type: 'https://rehearsal.dev/problems/unauthenticated', status: 401 });
  });

  it('trusts nobody while the request-header settings are unknown', async () => {
    const saved = settings;
    settings = undefined;
    try {
      const answer = await get('/apis/api.rehearsal.dev/v1/tests', { client: 'front-proxy', headers: { 'X-Remote-User': 'jane' } });
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.body).detail).toContain('request-header CA');
    } finally {
      settings = saved;
    }
  });

  it('redirects the dashboard path without its slash, where relative asset URLs would miss', async () => {
    const answer = await get('/apis/api.rehearsal.dev/v1/dashboard', { client: 'front-proxy', headers: { 'X-Remote-User': 'jane' } });
    expect(answer.status).toBe(301);
    expect(answer.location).toBe('/apis/api.rehearsal.dev/v1/dashboard/');
  });

  it('answers 404 for paths outside the group', async () => {
    const answer = await get('/api/v1/tests', { client: 'front-proxy', headers: { 'X-Remote-User': 'jane' } });
    expect(answer.status).toBe(404);
  });
});

describe('localPathOf', () => {
  it.each([
    ['/apis/api.rehearsal.dev/v1/tests', '/api/v1/tests'],
    ['/apis/api.rehearsal.dev/v1/summary/daily?days=7', '/api/v1/summary/daily?days=7'],
    ['/apis/api.rehearsal.dev/v1/restore-tests/shop/report.pdf?period=30', '/api/restore-tests/shop/report.pdf?period=30'],
    ['/apis/api.rehearsal.dev/v1/compliance/overview?period=30', '/api/compliance?period=30'],
    ['/apis/api.rehearsal.dev/v1/compliance/overview', '/api/compliance'],
    ['/apis/api.rehearsal.dev/v1/compliance?framework=soc2&period=30', '/api/v1/compliance?framework=soc2&period=30'],
    ['/apis/api.rehearsal.dev/v1/openapi.json', '/openapi.json'],
    ['/apis/api.rehearsal.dev/v1/dashboard/', '/'],
    ['/apis/api.rehearsal.dev/v1/dashboard/app-Ab12_x.js', '/app-Ab12_x.js'],
    ['/apis/api.rehearsal.dev/v2/tests', undefined],
    ['/api/v1/tests', undefined],
  ])('%s → %s', (aggregated, local) => {
    expect(localPathOf(aggregated)).toBe(local);
  });
});
