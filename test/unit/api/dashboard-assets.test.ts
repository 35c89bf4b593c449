// The dashboard's static files: hashed assets cached for a year, index.html revalidated, API
// paths untouched, and a problem naming the build step when the dashboard is not built.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import pino from 'pino';
import { dashboardAssets } from '../../../server/api/dashboard-assets.js';
import { errorHandler, noSuchRoute } from '../../../server/api/error-handler.js';

let dir: string;
const servers: import('node:http').Server[] = [];

async function serve(directory: string | undefined): Promise<string> {
  const app = express();
  app.use(dashboardAssets(directory));
  app.get('/api/v1/health', (_req, res) => void res.json({ status: 'ok' }));
  app.use(noSuchRoute);
  app.use(errorHandler(pino({ level: 'silent' })));
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rehearsal-web-'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><script src="./app-Xy12_ab.js"></script>');
  writeFileSync(join(dir, 'app-Xy12_ab.js'), 'console.log(1)');
  // A file where an API route is: the API path must not even be looked up in the directory.
  mkdirSync(join(dir, 'api', 'v1'), { recursive: true });
  writeFileSync(join(dir, 'api', 'v1', 'health'), 'a file, not the API');
});

afterAll(() => {
  for (const server of servers) server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('dashboardAssets', () => {
  it('serves index.html at / with no-cache and hashed assets as immutable for a year', async () => {
    const base = await serve(dir);
    const index = await fetch(`${base}/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    expect(await index.text()).toContain('app-Xy12_ab.js');
    const asset = await fetch(`${base}/app-Xy12_ab.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it('leaves API paths and unknown files to the routes after it', async () => {
    const base = await serve(dir);
    expect(await (await fetch(`${base}/api/v1/health`)).json()).toEqual({ status: 'ok' });
    const missing = await fetch(`${base}/app-missing.js`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/problem\+json/);
  });

  it('answers / with a problem naming the build step when there is no build', async () => {
    const base = await serve(undefined);
    const answer = await fetch(`${base}/`);
    expect(answer.status).toBe(404);
    expect((await answer.json()) as { detail: string }).toMatchObject({ detail: expect.stringContaining('npm run build:web') });
  });
});
