// The YAML view of a test (issue 30, web/src/test-yaml.ts): the API's TestResponse in YAML, read
// back by the yaml package as exactly that answer, headed by where it comes from.
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import type { TestResponse } from '../../../web/src/format.js';
import { testYaml, testYamlFileName } from '../../../web/src/test-yaml.js';

const TEST: TestResponse = {
  name: 'shop-daily',
  namespace: 'team-a',
  provider: 'velero',
  schedule: '0 2 * * *',
  phase: 'Idle',
  lastScore: 87,
  lastResult: 'partial',
  lastRunAt: '2026-12-06T02:04:11Z',
  nextRunAt: '2026-12-07T01:00:00Z',
  sourceNamespaces: ['shop', 'no'],
  rtoTarget: '10m',
  backupName: 'latest',
  timezone: 'Europe/Paris',
  onBackup: true,
  everyNthBackup: 2,
  ttl: '2h',
  labelSelector: { matchLabels: { app: 'orders', tier: 'true' } },
  includedResources: [{ group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments' }],
  preflight: { backupName: 'b-1', checkedAt: '2026-12-06T01:00:00Z', result: 'failed', summary: "StorageClass 'fast': gone #1", problems: [] },
};

describe('testYaml', () => {
  it('reads back as the API answer, strings YAML would retype included', () => {
    expect(parse(testYaml(TEST))).toEqual(TEST);
  });

  it('starts with a comment naming the API call and the kubectl command for the object', () => {
    const [first, second] = testYaml(TEST).split('\n');
    expect(first).toBe('# team-a/shop-daily as GET /api/v1/tests/shop-daily?namespace=team-a answers it');
    expect(second).toContain('kubectl get restoretest shop-daily -n team-a -o yaml');
  });

  it('downloads to namespace-name.yaml', () => {
    expect(testYamlFileName(TEST)).toBe('team-a-shop-daily.yaml');
  });
});
