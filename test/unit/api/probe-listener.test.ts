// The probe port answers health and metrics only; the API port binds loopback by default. /metrics
// needs a token the cluster accepts whose user may `get /metrics` (issue 26); health needs nothing
// (the kubelet's probes send no token).
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import pino from 'pino';
import type { ReviewedUser } from '../../../server/api/auth/access-review.js';
import type { MetricsReviewer } from '../../../server/api/auth/metrics-access.js';
import { startProbeListener } from '../../../server/api/probe-listener.js';
import { KubeError } from '../../../server/kube/errors.js';

const reviews: string[] = [];
const reviewer: MetricsReviewer = {
  async reviewToken(token) {
    if (token === 'unreachable') throw new KubeError('Unavailable', 503, 'apiserver overloaded');
    const users: Record<string, ReviewedUser> = {
      'prometheus-token': { username: 'system:serviceaccount:monitoring:prometheus-k8s', groups: [] },
      'pod-token': { username: 'system:serviceaccount:team-a:default', groups: [] },
    };
    return users[token] ?? null;
  },
  async reviewNonResourceAccess(user, verb, path) {
    reviews.push(`${user.username} ${verb} ${path}`);
    return { allowed: user.username.endsWith(':prometheus-k8s') && verb === 'get' && path === '/metrics' };
  },
};
import { loadConfig } from '../../../server/config.js';

describe('probe listener', () => {
  it('serves /api/v1/health and /metrics, and nothing of the API', async () => {
    const server = await startProbeListener({
      host: '127.0.0.1',
      port: 0,
      health: () => ({ status: 'ok' }),
      metrics: { contentType: 'text/plain; version=0.0.4', metrics: async () => 'rehearsal_up 1\n' },
      metricsReviewer: reviewer,
      log: pino({ level: 'silent' }),
    });
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const health = await fetch(`${base}/api/v1/health`);
      expect([health.status, await health.json()]).toEqual([200, { status: 'ok' }]);
      const metrics = await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer prometheus-token' } });
      expect([metrics.status, await metrics.text()]).toEqual([200, 'rehearsal_up 1\n']);
      for (const path of ['/api/v1/tests', '/api/v1/summary', '/openapi.json', '/docs']) {
        expect([path, (await fetch(`${base}${path}`, { headers: { authorization: 'Bearer x' } })).status]).toEqual([path, 404]);
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('/metrics on the probe port', () => {
  async function statusOf(token: string | undefined, withReviewer: MetricsReviewer | null = reviewer): Promise<[number, string | null]> {
    const server = await startProbeListener({
      host: '127.0.0.1',
      port: 0,
      health: () => ({ status: 'ok' }),
      metrics: { contentType: 'text/plain', metrics: async () => 'rehearsal_score{namespace="team-b",test="payroll"} 95\n' },
      metricsReviewer: withReviewer ?? undefined,
      log: pino({ level: 'silent' }),
    });
    try {
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`, {
        headers: token ? { authorization: `Bearer ${token}` } : {},
      });
      const body = await response.text();
      if (response.status !== 200) expect(body).not.toContain('team-b');
      return [response.status, response.headers.get('www-authenticate')];
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }

  it('answers 401 without a token, or with one the cluster does not accept', async () => {
    expect(await statusOf(undefined)).toEqual([401, 'Bearer realm="rehearsal-metrics"']);
    expect(await statusOf('stolen')).toEqual([401, 'Bearer realm="rehearsal-metrics", error="invalid_token"']);
  });

  it('answers 403 to a user who may not get /metrics (any pod\'s ServiceAccount), 200 to one who may', async () => {
    expect((await statusOf('pod-token'))[0]).toBe(403);
    expect((await statusOf('prometheus-token'))[0]).toBe(200);
    expect(reviews).toContain('system:serviceaccount:team-a:default get /metrics');
  });

  it('fails closed: 503 when the apiserver cannot review, 401 when there is no reviewer at all', async () => {
    expect((await statusOf('unreachable'))[0]).toBe(503);
    expect((await statusOf('prometheus-token', null))[0]).toBe(401);
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
