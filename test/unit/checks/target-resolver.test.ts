import { describe, expect, it } from '@jest/globals';
import {
  ClusterDnsTargetResolver,
  createTargetResolver,
  formatHostPort,
  StaticTargetResolver,
  TargetResolutionError,
} from '../../../server/checks/target-resolver.js';
import { describeDuration, formatCheckDuration } from '../../../server/domain/common/duration.js';

const target = { namespace: 'rehearsal-shop-abc12', service: 'web', port: 8080 };

describe('ClusterDnsTargetResolver', () => {
  it('targets the sandbox Service DNS name, suffix "svc" by default', () => {
    expect(new ClusterDnsTargetResolver().resolve(target)).toEqual({
      host: 'web.rehearsal-shop-abc12.svc',
      port: 8080,
    });
    expect(new ClusterDnsTargetResolver({ dnsSuffix: 'svc.cluster.local.' }).resolve(target)).toEqual({
      host: 'web.rehearsal-shop-abc12.svc.cluster.local',
      port: 8080,
    });
  });

  it('refuses names that are not DNS labels (no IPs or foreign domains smuggled in)', () => {
    const resolver = new ClusterDnsTargetResolver();
    expect(() => resolver.resolve({ ...target, service: '10.0.0.7' })).toThrow(TargetResolutionError);
    expect(() => resolver.resolve({ ...target, service: 'evil.example.com' })).toThrow(
      'is not a valid Service name',
    );
    expect(() => resolver.resolve({ ...target, namespace: 'a.b' })).toThrow('is not a valid namespace name');
    expect(() => resolver.resolve({ ...target, port: 0 })).toThrow('port 0 is not in 1-65535');
    expect(() => new ClusterDnsTargetResolver({ dnsSuffix: 'bad suffix' })).toThrow(
      'invalid cluster DNS suffix',
    );
  });
});

describe('StaticTargetResolver', () => {
  it('maps service:port to a loopback address, a namespace-qualified key winning', () => {
    const resolver = new StaticTargetResolver({
      'web:8080': '127.0.0.1:18080',
      'rehearsal-shop-abc12/web:8080': '127.0.0.2:28080',
      'db:5432': 'localhost:15432',
      'cache:6379': '[::1]:16379',
    });
    expect(resolver.resolve(target)).toEqual({ host: '127.0.0.2', port: 28080 });
    expect(resolver.resolve({ ...target, namespace: 'other' })).toEqual({ host: '127.0.0.1', port: 18080 });
    expect(resolver.resolve({ ...target, service: 'db', port: 5432 })).toEqual({
      host: 'localhost',
      port: 15432,
    });
    expect(formatHostPort(resolver.resolve({ ...target, service: 'cache', port: 6379 }))).toBe('[::1]:16379');
  });

  it('has no fallback: an unmapped Service is an error', () => {
    expect(() => new StaticTargetResolver({}).resolve(target)).toThrow(
      'no static target configured for Service rehearsal-shop-abc12/web port 8080 (add "web:8080" to the static target map)',
    );
  });

  it('refuses any non-loopback target (KWOK pod and node IPs must never be dialed)', () => {
    for (const address of [
      '10.244.0.5:80',
      '192.0.2.1:80',
      'web.shop.svc:80',
      '0.0.0.0:80',
      '128.0.0.1:80',
    ]) {
      expect(() => new StaticTargetResolver({ 'web:80': address })).toThrow('must be a loopback host:port');
    }
    expect(() => new StaticTargetResolver({ web: '127.0.0.1:80' })).toThrow('must be "service:port"');
    expect(() => new StaticTargetResolver({ 'web:80': '127.0.0.1:70000' })).toThrow('is not in 1-65535');
  });

  it('is chosen by createTargetResolver from config', () => {
    expect(
      createTargetResolver({ mode: 'static', targets: { 'web:8080': '127.0.0.1:1' } }).resolve(target).host,
    ).toBe('127.0.0.1');
    expect(createTargetResolver({ mode: 'cluster-dns' }).resolve(target).host).toBe(
      'web.rehearsal-shop-abc12.svc',
    );
  });
});

describe('check durations', () => {
  it('formats measured durations as seconds with one decimal', () => {
    expect([0, 49, 50, 1_234, 30_000, 95_321, -3, Number.NaN].map(formatCheckDuration)).toEqual([
      '0.0s',
      '0.0s',
      '0.1s',
      '1.2s',
      '30.0s',
      '95.3s',
      '0.0s',
      '0.0s',
    ]);
  });

  it('describes configured timeouts in the API duration style', () => {
    expect([250, 1_000, 30_000, 90_000, 120_000, 600_000].map(describeDuration)).toEqual([
      '250ms',
      '1s',
      '30s',
      '1m30s',
      '2m',
      '10m',
    ]);
  });
});
