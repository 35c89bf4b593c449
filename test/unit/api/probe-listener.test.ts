// The probe port answers health and metrics only; the API port binds loopback by default.
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import pino from 'pino';
import { startProbeListener } from '../../../server/api/probe-listener.js';
import { loadConfig } from '../../../server/config.js';

describe('probe listener', () => {
  it('serves /api/v1/health and /metrics, and nothing of the API', async () => {
    const server = await startProbeListener({
      host: '127.0.0.1',
      port: 0,
      health: () => ({ status: 'ok' }),
      metrics: { contentType: 'text/plain; version=0.0.4', metrics: async () => 'rehearsal_up 1\n' },
      log: pino({ level: 'silent' }),
    });
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const health = await fetch(`${base}/api/v1/health`);
      expect([health.status, await health.json()]).toEqual([200, { status: 'ok' }]);
      const metrics = await fetch(`${base}/metrics`);
      expect([metrics.status, await metrics.text()]).toEqual([200, 'rehearsal_up 1\n']);
      for (const path of ['/api/v1/tests', '/api/v1/summary', '/openapi.json', '/docs']) {
        expect([path, (await fetch(`${base}${path}`, { headers: { authorization: 'Bearer x' } })).status]).toEqual([path, 404]);
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('listener configuration (decision 0009: tokens in cleartext)', () => {
  it('binds the API port to loopback and serves no probe port unless configured', () => {
    const config = loadConfig({});
    expect(config.host).toBe('127.0.0.1');
    expect(config.probe).toBeUndefined();
    expect(config.tokenAudiences).toEqual(['rehearsal.dev']);
    expect(loadConfig({ REHEARSAL_PROBE_PORT: '8081' }).probe).toEqual({ host: '127.0.0.1', port: 8081 });
    expect(loadConfig({ REHEARSAL_PROBE_PORT: '8081', REHEARSAL_PROBE_HOST: '0.0.0.0' }).probe).toEqual({ host: '0.0.0.0', port: 8081 });
  });
});
