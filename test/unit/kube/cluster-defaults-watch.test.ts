// Issue 30: the cluster-wide defaults follow the watched ConfigMap without a restart; a bad value
// keeps the last good one, is logged with its key, and is exported as
// rehearsal_cluster_defaults_invalid{key} until it is fixed. Nothing here throws.
import { describe, expect, it } from '@jest/globals';
import { KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import pino from 'pino';
import { BUILT_IN_CLUSTER_DEFAULTS } from '../../../server/domain/run/cluster-defaults.js';
import { ClusterDefaultsWatch } from '../../../server/kube/cluster-defaults-watch.js';
import { Metrics } from '../../../server/metrics/metrics.js';

function configMap(data: Record<string, string>): V1ConfigMap {
  return { metadata: { name: 'rehearsal-cluster-defaults', namespace: 'rehearsal-system' }, data };
}

function setup(initial: V1ConfigMap | undefined) {
  const lines: { level: number; msg: string; key?: string }[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const metrics = new Metrics({ defaultMetrics: false });
  let feed: (configMap: V1ConfigMap | undefined) => void = () => undefined;
  const watch = new ClusterDefaultsWatch({
    kubeConfig: new KubeConfig(),
    namespace: 'rehearsal-system',
    log,
    onProblems: (problems) => metrics.setClusterDefaultsInvalid(problems.map((problem) => problem.key)),
    watch: (handler) => {
      feed = handler;
      return { start: async () => handler(initial), stop: () => undefined };
    },
  });
  const invalidKeys = async (): Promise<string[]> =>
    (await metrics.clusterDefaultsInvalid.get()).values.filter((value) => value.value === 1).map((value) => String(value.labels.key));
  return { watch, lines, feed: (next: V1ConfigMap | undefined) => feed(next), invalidKeys };
}

describe('ClusterDefaultsWatch', () => {
  it('without the ConfigMap: the built-in defaults, no warning, nothing exported', async () => {
    const { watch, lines, invalidKeys } = setup(undefined);
    await watch.start();
    expect(watch.current()).toEqual(BUILT_IN_CLUSTER_DEFAULTS);
    expect(lines.filter((line) => line.level >= 40)).toEqual([]);
    expect(await invalidKeys()).toEqual([]);
  });

  it('follows every change of the ConfigMap, and its deletion', async () => {
    const { watch, feed } = setup(configMap({ sandboxTtl: '2h', 'sandboxQuota.pods': '30' }));
    await watch.start();
    expect(watch.current()).toMatchObject({ ttl: '2h', quotaPods: 30 });
    feed(configMap({ sandboxTtl: '3h', 'alerts.maxBackupAge': '24h' }));
    expect(watch.current()).toEqual({ ...BUILT_IN_CLUSTER_DEFAULTS, ttl: '3h', maxBackupAge: '24h' });
    feed(undefined);
    expect(watch.current()).toEqual(BUILT_IN_CLUSTER_DEFAULTS);
  });

  it('a bad value keeps the last good one, warns naming the key, and is exported until fixed', async () => {
    const { watch, feed, lines, invalidKeys } = setup(configMap({ sandboxTtl: '2h', 'alerts.consecutiveFailures': '4' }));
    await watch.start();
    feed(configMap({ sandboxTtl: 'two hours', 'alerts.consecutiveFailures': '5' }));
    expect(watch.current()).toMatchObject({ ttl: '2h', consecutiveFailures: 5 });
    const warnings = lines.filter((line) => line.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.key).toBe('sandboxTtl');
    expect(warnings[0]!.msg).toMatch(/rehearsal-system\/rehearsal-cluster-defaults: key sandboxTtl: "two hours" is not a positive duration.*keeping 2h/);
    expect(watch.currentProblems().map((problem) => problem.key)).toEqual(['sandboxTtl']);
    expect(await invalidKeys()).toEqual(['sandboxTtl']);

    feed(configMap({ sandboxTtl: '90m', 'alerts.consecutiveFailures': '5' }));
    expect(watch.current()).toMatchObject({ ttl: '1h30m' });
    expect(watch.currentProblems()).toEqual([]);
    expect(await invalidKeys()).toEqual([]);
  });

  it('a bad value in the first ConfigMap seen keeps the built-in default', async () => {
    const { watch, invalidKeys } = setup(configMap({ 'alerts.maxBackupAge': '2d' }));
    await watch.start();
    expect(watch.current()).toEqual(BUILT_IN_CLUSTER_DEFAULTS);
    expect(await invalidKeys()).toEqual(['alerts.maxBackupAge']);
  });
});
