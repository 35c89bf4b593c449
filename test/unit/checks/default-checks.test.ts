import { describe, expect, it } from '@jest/globals';
import { runChecks } from '../../../server/checks/check-runner.js';
import {
  checksForRun,
  defaultChecks,
  runServiceEndpointsCheck,
} from '../../../server/checks/default-checks.js';
import { SandboxReadError } from '../../../server/checks/sandbox-reader.js';
import { StaticTargetResolver } from '../../../server/checks/target-resolver.js';
import type { HealthCheck } from '../../../server/domain/resources/resources.js';
import { checkContext, FakeSandboxReader, pod } from './fake-sandbox-reader.js';

const namespaces = [
  { source: 'shop', sandbox: 'rt-shop-1' },
  { source: 'payments', sandbox: 'rt-payments-1' },
];

describe('defaultChecks', () => {
  it('plans pods-ready and service-endpoints for every sandbox, in order', () => {
    expect(
      defaultChecks(namespaces).map(({ name, kind, sourceNamespace }) => ({ name, kind, sourceNamespace })),
    ).toEqual([
      { name: 'default/pods-ready/shop', kind: 'podsReady', sourceNamespace: 'shop' },
      { name: 'default/service-endpoints/shop', kind: 'podsReady', sourceNamespace: 'shop' },
      { name: 'default/pods-ready/payments', kind: 'podsReady', sourceNamespace: 'payments' },
      { name: 'default/service-endpoints/payments', kind: 'podsReady', sourceNamespace: 'payments' },
    ]);
  });

  it('applies only when no checks are configured', () => {
    const configured: HealthCheck[] = [
      { name: 'web', kind: 'tcpSocket', tcpSocket: { service: 'web', port: 80 } },
    ];
    expect(checksForRun(configured, namespaces)).toEqual(configured);
    expect(checksForRun([], namespaces)).toHaveLength(4);
    expect(checksForRun(undefined, namespaces)).toHaveLength(4);
  });

  it('runs against every sandbox and reports one result per namespace and rule', async () => {
    const reader = new FakeSandboxReader({
      pods: [
        pod('rt-shop-1', 'web-0'),
        pod('rt-shop-1', 'web-1', { ready: false, phase: 'Pending' }),
        pod('rt-payments-1', 'ledger-0'),
      ],
      services: [
        {
          namespace: 'rt-shop-1',
          name: 'web',
          type: 'ClusterIP',
          selector: { app: 'web' },
          ports: [{ port: 80 }],
        },
        {
          namespace: 'rt-payments-1',
          name: 'ledger',
          type: 'ClusterIP',
          selector: { app: 'ledger' },
          ports: [{ port: 8080 }],
        },
      ],
      endpointSlices: [
        { namespace: 'rt-shop-1', name: 'web-x1', serviceName: 'web', readyEndpoints: 1, totalEndpoints: 2 },
        {
          namespace: 'rt-payments-1',
          name: 'ledger-x1',
          serviceName: 'ledger',
          readyEndpoints: 0,
          totalEndpoints: 1,
        },
      ],
    });
    const results = await runChecks(defaultChecks(namespaces), {
      reader,
      targets: new StaticTargetResolver({}),
      namespaces,
    });
    expect(results.map(({ name, kind, status, message }) => ({ name, kind, status, message }))).toEqual([
      {
        name: 'default/pods-ready/shop',
        kind: 'podsReady',
        status: 'fail',
        message: '1/2 pods Ready in rt-shop-1; not Ready: web-1 (Pending)',
      },
      {
        name: 'default/service-endpoints/shop',
        kind: 'podsReady',
        status: 'pass',
        message: '1/1 Services in rt-shop-1 have a ready endpoint',
      },
      {
        name: 'default/pods-ready/payments',
        kind: 'podsReady',
        status: 'pass',
        message: '1/1 pods Ready in rt-payments-1',
      },
      {
        name: 'default/service-endpoints/payments',
        kind: 'podsReady',
        status: 'fail',
        message: '0/1 Services in rt-payments-1 have a ready endpoint; none ready: ledger',
      },
    ]);
    expect(new Set(reader.calls.map((call) => call.namespace))).toEqual(
      new Set(['rt-shop-1', 'rt-payments-1']),
    );
  });
});

describe('service-endpoints default check', () => {
  const NS = 'rt-shop-1';

  it('sums ready endpoints over all slices of a Service', async () => {
    const reader = new FakeSandboxReader({
      services: [{ namespace: NS, name: 'web', type: 'ClusterIP', selector: { app: 'web' }, ports: [] }],
      endpointSlices: [
        { namespace: NS, name: 'web-v4', serviceName: 'web', readyEndpoints: 0, totalEndpoints: 1 },
        { namespace: NS, name: 'web-v6', serviceName: 'web', readyEndpoints: 1, totalEndpoints: 1 },
      ],
    });
    expect(
      (
        await runServiceEndpointsCheck(
          { name: 's', kind: 'podsReady' },
          checkContext({ reader, namespace: NS }),
        )
      ).status,
    ).toBe('pass');
  });

  it('fails for a selector Service without any slice, and lists at most five names', async () => {
    const services = Array.from({ length: 7 }, (_, i) => ({
      namespace: NS,
      name: `svc-${i}`,
      type: 'ClusterIP',
      selector: { app: `a${i}` },
      ports: [],
    }));
    const reader = new FakeSandboxReader({ services });
    expect(
      await runServiceEndpointsCheck(
        { name: 's', kind: 'podsReady' },
        checkContext({ reader, namespace: NS }),
      ),
    ).toEqual({
      status: 'fail',
      message: `0/7 Services in ${NS} have a ready endpoint; none ready: svc-0, svc-1, svc-2, svc-3, svc-4 and 2 more`,
    });
  });

  it('does not require endpoints of ExternalName Services or selector-less Services without slices', async () => {
    const reader = new FakeSandboxReader({
      services: [
        { namespace: NS, name: 'upstream', type: 'ExternalName', ports: [] },
        { namespace: NS, name: 'manual', type: 'ClusterIP', ports: [{ port: 5432 }] },
        { namespace: NS, name: 'manual-sliced', type: 'ClusterIP', ports: [{ port: 5432 }] },
      ],
      endpointSlices: [
        {
          namespace: NS,
          name: 'manual-sliced-1',
          serviceName: 'manual-sliced',
          readyEndpoints: 1,
          totalEndpoints: 1,
        },
      ],
    });
    expect(
      await runServiceEndpointsCheck(
        { name: 's', kind: 'podsReady' },
        checkContext({ reader, namespace: NS }),
      ),
    ).toEqual({
      status: 'pass',
      message: `1/1 Services in ${NS} have a ready endpoint (2 without selector-managed endpoints not checked)`,
    });
  });

  it('skips a sandbox without Services and is an error when the API refuses', async () => {
    expect(
      await runServiceEndpointsCheck({ name: 's', kind: 'podsReady' }, checkContext({ namespace: NS })),
    ).toEqual({
      status: 'skip',
      message: `no Services with endpoints to check in ${NS}`,
    });
    const reader = new FakeSandboxReader({
      failures: { listEndpointSlices: new SandboxReadError('Unavailable', 'connect ECONNREFUSED') },
    });
    expect(
      (
        await runServiceEndpointsCheck(
          { name: 's', kind: 'podsReady' },
          checkContext({ reader, namespace: NS }),
        )
      ).message,
    ).toBe(`cannot list Services and EndpointSlices in ${NS}: Unavailable: connect ECONNREFUSED`);
  });
});
