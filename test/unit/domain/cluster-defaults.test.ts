// Issue 30: the cluster-wide defaults' parsing (bad values keep the last good one, named by key) and
// precedence (the test's own value > the cluster default > the built-in default).
import { describe, expect, it } from '@jest/globals';
import {
  alertThresholds,
  BUILT_IN_CLUSTER_DEFAULTS,
  effectiveTargets,
  effectiveTtlSeconds,
  parseClusterDefaults,
  sandboxQuotaHard,
  storageQuotaLimit,
  type ClusterDefaults,
} from '../../../server/domain/run/cluster-defaults.js';

const FULL = {
  'sandboxQuota.cpu': '4',
  'sandboxQuota.memory': '8Gi',
  'sandboxQuota.pods': '30',
  'sandboxQuota.storage': '50Gi',
  sandboxTtl: '2h',
  rtoTarget: '30m',
  rpoTarget: '24h',
  'alerts.maxBackupAge': '26h',
  'alerts.consecutiveFailures': '5',
};

describe('parseClusterDefaults', () => {
  it('without a ConfigMap (or with an empty one) gives the built-in defaults, without problems', () => {
    expect(parseClusterDefaults(undefined)).toEqual({ defaults: BUILT_IN_CLUSTER_DEFAULTS, problems: [] });
    expect(parseClusterDefaults({})).toEqual({ defaults: BUILT_IN_CLUSTER_DEFAULTS, problems: [] });
    expect(BUILT_IN_CLUSTER_DEFAULTS).toEqual({ ttl: '1h', maxBackupAge: '48h', consecutiveFailures: 3 });
  });

  it('reads every key', () => {
    expect(parseClusterDefaults(FULL)).toEqual({
      defaults: {
        quotaCpu: '4',
        quotaMemory: '8Gi',
        quotaPods: 30,
        quotaStorage: '50Gi',
        ttl: '2h',
        rtoTarget: '30m',
        rpoTarget: '24h',
        maxBackupAge: '26h',
        consecutiveFailures: 5,
      },
      problems: [],
    });
  });

  it('writes durations the one way the API prints them, and trims blanks', () => {
    const { defaults } = parseClusterDefaults({ sandboxTtl: ' 90m ', 'alerts.maxBackupAge': '3600s' });
    expect(defaults.ttl).toBe('1h30m');
    expect(defaults.maxBackupAge).toBe('1h');
  });

  it('an empty value means the built-in default (how an admin removes an override)', () => {
    expect(parseClusterDefaults({ sandboxTtl: '', rtoTarget: '' }).defaults).toEqual(BUILT_IN_CLUSTER_DEFAULTS);
  });

  it.each([
    ['sandboxQuota.cpu', 'lots', /not a Kubernetes quantity/],
    ['sandboxQuota.memory', '-1Gi', /not a Kubernetes quantity/],
    ['sandboxQuota.pods', '0', /whole number from 1 to 100000/],
    ['sandboxQuota.pods', '2.5', /whole number/],
    ['sandboxQuota.storage', '10 GB', /not a Kubernetes quantity/],
    ['sandboxTtl', '1d', /not a positive duration/],
    ['sandboxTtl', '0s', /not a positive duration/],
    ['rtoTarget', '15 minutes', /not a positive duration/],
    ['rpoTarget', '1.5h', /not a positive duration/],
    ['alerts.maxBackupAge', '-48h', /not a positive duration/],
    ['alerts.consecutiveFailures', 'three', /whole number from 1 to 1000/],
    ['alerts.consecutiveFailures', '0', /whole number/],
  ])('a bad %s (%p) keeps the last good value and names the key', (key, value, message) => {
    const lastGood = parseClusterDefaults(FULL).defaults;
    const { defaults, problems } = parseClusterDefaults({ ...FULL, [key]: value }, lastGood);
    expect(defaults).toEqual(lastGood);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.key).toBe(key);
    expect(problems[0]!.message).toMatch(message);
    expect(problems[0]!.message).toContain('keeping');
  });

  it('a bad value with no good one before keeps the built-in default (or none)', () => {
    const { defaults, problems } = parseClusterDefaults({ sandboxTtl: 'soon', rtoTarget: 'soon' });
    expect(defaults).toEqual(BUILT_IN_CLUSTER_DEFAULTS);
    expect(problems.map((problem) => [problem.key, problem.message.split('; ')[1]])).toEqual([
      ['sandboxTtl', 'keeping 1h'],
      ['rtoTarget', 'keeping none'],
    ]);
  });

  it('one bad key leaves the good keys beside it in effect', () => {
    const { defaults, problems } = parseClusterDefaults({ sandboxTtl: '3h', 'alerts.consecutiveFailures': 'x' });
    expect(defaults).toEqual({ ...BUILT_IN_CLUSTER_DEFAULTS, ttl: '3h' });
    expect(problems.map((problem) => problem.key)).toEqual(['alerts.consecutiveFailures']);
  });

  it('reports an unknown key (a typo) without changing anything', () => {
    const { defaults, problems } = parseClusterDefaults({ sandboxTTL: '3h' });
    expect(defaults).toEqual(BUILT_IN_CLUSTER_DEFAULTS);
    expect(problems).toEqual([{ key: 'sandboxTTL', message: expect.stringContaining('unknown key') }]);
  });

  it('returns frozen defaults', () => {
    expect(Object.isFrozen(parseClusterDefaults(FULL).defaults)).toBe(true);
  });
});

describe('precedence: the test > the cluster default > built-in', () => {
  const cluster: ClusterDefaults = parseClusterDefaults(FULL).defaults;
  const CAP = 168 * 3600;

  // Decision 0018: the engine caps the ttl itself, whatever admission let through.
  it.each([
    ['the test', '30m', BUILT_IN_CLUSTER_DEFAULTS, 1800],
    ['the test over the cluster', '30m', cluster, 1800],
    ['the cluster', undefined, cluster, 7200],
    ['built-in', undefined, BUILT_IN_CLUSTER_DEFAULTS, 3600],
    ['an unreadable test ttl falls back to the cluster', 'not-a-duration', cluster, 7200],
    ['the cap over the test', '9999h', cluster, CAP],
    ['the cap over the cluster', undefined, { ...cluster, ttl: '500h' }, CAP],
  ] as const)('ttl: %s', (_name, testTtl, defaults, seconds) => {
    expect(effectiveTtlSeconds(testTtl, defaults, CAP)).toBe(seconds);
  });

  it('quota: none without either; the cluster CPU, memory and pods; the test wins key by key', () => {
    expect(sandboxQuotaHard(undefined, BUILT_IN_CLUSTER_DEFAULTS)).toBeUndefined();
    expect(sandboxQuotaHard({ pods: '5' }, BUILT_IN_CLUSTER_DEFAULTS)).toEqual({ pods: '5' });
    expect(sandboxQuotaHard(undefined, cluster)).toEqual({ 'requests.cpu': '4', 'requests.memory': '8Gi', pods: '30' });
    expect(sandboxQuotaHard({ pods: '5', 'requests.cpu': '500m', 'limits.cpu': '1' }, cluster)).toEqual({
      'requests.cpu': '500m',
      'requests.memory': '8Gi',
      pods: '5',
      'limits.cpu': '1',
    });
  });

  it("storage: the cluster's over the installation's (a test only tightens it with its own quota)", () => {
    expect(storageQuotaLimit('100Gi', BUILT_IN_CLUSTER_DEFAULTS)).toBe('100Gi');
    expect(storageQuotaLimit('100Gi', cluster)).toBe('50Gi');
  });

  it('RTO and RPO targets: each of the test, else the cluster, else none', () => {
    expect(effectiveTargets(undefined, BUILT_IN_CLUSTER_DEFAULTS)).toEqual({});
    expect(effectiveTargets(undefined, cluster)).toEqual({ maxRTO: '30m', maxRPO: '24h' });
    expect(effectiveTargets({ maxRTO: '10m' }, cluster)).toEqual({ maxRTO: '10m', maxRPO: '24h' });
    expect(effectiveTargets({ maxRTO: '10m', maxRPO: '1h' }, cluster)).toEqual({ maxRTO: '10m', maxRPO: '1h' });
  });

  it('alert thresholds in seconds', () => {
    expect(alertThresholds(BUILT_IN_CLUSTER_DEFAULTS)).toEqual({ maxBackupAgeSeconds: 48 * 3600, consecutiveFailures: 3 });
    expect(alertThresholds(cluster)).toEqual({ maxBackupAgeSeconds: 26 * 3600, consecutiveFailures: 5 });
  });
});
