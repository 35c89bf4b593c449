import { describe, expect, it } from '@jest/globals';
import { runChecks } from '../../../server/checks/check-runner.js';
import { runResourceExistsCheck } from '../../../server/checks/resource-exists.check.js';
import { StaticTargetResolver } from '../../../server/checks/target-resolver.js';
import type { HealthCheck } from '../../../server/domain/resources/resources.js';
import { checkContext, FakeSandboxReader, type FakeCluster } from './fake-sandbox-reader.js';

const namespaces = [
  { source: 'shop', sandbox: 'rehearsal-nightly-abc12' },
  { source: 'payments', sandbox: 'rehearsal-nightly-abc12-2' },
];

const cluster: FakeCluster = {
  resources: {
    'apps/v1/Deployment/rehearsal-nightly-abc12/web': { state: 'exists' },
    'apps/v1/Deployment/rehearsal-nightly-abc12-2/ledger': { state: 'exists' },
    'example.com/v1/Widget/rehearsal-nightly-abc12/w': {
      state: 'unknown-kind',
      message: 'the cluster does not serve example.com/v1',
    },
    'v1/ConfigMap/rehearsal-nightly-abc12/settings': {
      state: 'error',
      reason: 'Forbidden',
      message: 'read v1 ConfigMap rehearsal-nightly-abc12/settings: configmaps "settings" is forbidden',
    },
  },
};
const reader = new FakeSandboxReader(cluster);

function check(
  name: string,
  kind = 'Deployment',
  apiVersion = 'apps/v1',
  sourceNamespace?: string,
): HealthCheck {
  return {
    name: `has-${name}`,
    kind: 'resourceExists',
    resourceExists: { apiVersion, kind, name, ...(sourceNamespace ? { sourceNamespace } : {}) },
  };
}

describe('resourceExists check', () => {
  const context = checkContext({ reader, namespace: 'rehearsal-nightly-abc12', sourceNamespace: 'shop' });

  it('passes when the object exists and fails when it does not', async () => {
    expect(await runResourceExistsCheck(check('web'), context)).toEqual({
      status: 'pass',
      message: 'Deployment rehearsal-nightly-abc12/web (apps/v1, restored from shop) exists',
    });
    expect(await runResourceExistsCheck(check('api'), context)).toEqual({
      status: 'fail',
      message: 'Deployment rehearsal-nightly-abc12/api (apps/v1, restored from shop) not found',
    });
  });

  it('fails for a kind the cluster does not serve, and is an error when the read is refused', async () => {
    expect(await runResourceExistsCheck(check('w', 'Widget', 'example.com/v1'), context)).toEqual({
      status: 'fail',
      message:
        'Widget rehearsal-nightly-abc12/w (example.com/v1, restored from shop) cannot exist: the cluster does not serve example.com/v1',
    });
    const refused = await runResourceExistsCheck(check('settings', 'ConfigMap', 'v1'), context);
    expect(refused.status).toBe('error');
    expect(refused.message).toContain('Forbidden: read v1 ConfigMap');
  });

  it('looks in the sandbox of the named source namespace (block-level sourceNamespace wins)', async () => {
    const recording = new FakeSandboxReader(cluster);
    const results = await runChecks(
      [
        check('web'), // default: the first source
        check('ledger', 'Deployment', 'apps/v1', 'payments'),
        { ...check('ledger'), sourceNamespace: 'payments' }, // check-level sourceNamespace
        { ...check('web', 'Deployment', 'apps/v1', 'shop'), sourceNamespace: 'payments' }, // block wins
        check('web', 'Deployment', 'apps/v1', 'billing'), // not part of the run
      ],
      { reader: recording, targets: new StaticTargetResolver({}), namespaces },
    );
    expect(results.map((result) => result.status)).toEqual(['pass', 'pass', 'pass', 'pass', 'error']);
    expect(results[4]?.message).toBe(
      'sourceNamespace "billing" is not restored by this run (sources: shop, payments)',
    );
    expect(recording.calls.map((call) => call.namespace)).toEqual([
      'rehearsal-nightly-abc12',
      'rehearsal-nightly-abc12-2',
      'rehearsal-nightly-abc12-2',
      'rehearsal-nightly-abc12',
    ]);
  });

  it('is an error without apiVersion, kind or name', async () => {
    expect((await runResourceExistsCheck(check(''), context)).message).toBe(
      'resourceExists needs apiVersion, kind and name',
    );
  });
});
