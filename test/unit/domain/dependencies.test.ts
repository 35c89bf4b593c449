import { describe, expect, it } from '@jest/globals';
import {
  classifyDependencies,
  findReferences,
  hostsIn,
  lookupTarget,
  MAX_REPORTED_DEPENDENCIES,
  reportedDependencies,
  serviceKey,
  type Dependency,
  type RunNamespaces,
  type ScannedObject,
  type ServiceState,
} from '../../../server/domain/run/dependencies.js';

const run: RunNamespaces = {
  // Two sources restored together: shop → sb-shop, shop-db → sb-db.
  sourceOf: new Map([
    ['sb-shop', 'shop'],
    ['sb-db', 'shop-db'],
  ]),
  clusterNamespaces: new Set(['shop', 'shop-db', 'payments', 'sb-shop', 'sb-db', 'default']),
};

function object(texts: string[], kind = 'ConfigMap', name = 'app', sandbox = 'sb-shop'): ScannedObject {
  return { kind, name, sandbox, texts };
}

describe('hostsIn', () => {
  const known = new Set(['payments', 'shop']);
  it.each<[string, string[]]>([
    ['db.shop-db.svc.cluster.local', ['db.shop-db']],
    ['postgres://app:pw@db.shop-db.svc:5432/orders?ssl=off', ['db.shop-db']],
    ['http://API.Payments.svc.cluster.local./v1', ['api.payments']],
    ['host: api.payments\nport: 80', ['api.payments']],
    ['https://example.com/x and db.unknown-ns', []], // two labels, not a namespace we know
    ['x.db.shop.svc.cluster.local', []], // more labels in front: not a Service host
    ['db.shop.svc.cluster.localhost', []],
    ['a.b.example.com', []],
    ['api.payments.svc.example.org', []], // another domain after .svc
    ['one db.shop.svc, two cache.payments.svc', ['db.shop', 'cache.payments']],
    ['file.svc', []],
  ])('%s', (text, expected) => {
    expect(hostsIn(text, known).map((host) => `${host.service}.${host.namespace}`)).toEqual(expected);
  });

  it('follows a custom cluster domain', () => {
    expect(hostsIn('db.shop.svc.corp.internal', known, 'corp.internal')).toEqual([{ service: 'db', namespace: 'shop' }]);
    expect(hostsIn('db.shop.svc.cluster.local', known, 'corp.internal')).toEqual([]);
  });
});

describe('findReferences', () => {
  it('keeps one reference per object and Service, skips its own sandbox and unknown sandboxes', () => {
    const references = findReferences(
      [
        object(['db.shop-db.svc', 'again db.shop-db.svc.cluster.local', 'web.sb-shop.svc']),
        object(['db.shop-db.svc'], 'Deployment', 'web'),
        object(['api.payments'], 'Service', 'pay', 'sb-db'),
        object(['db.shop-db.svc'], 'ConfigMap', 'x', 'not-a-sandbox'),
      ],
      run,
    );
    expect(references.map((reference) => `${reference.from} → ${reference.service}.${reference.namespace}`)).toEqual([
      'ConfigMap/shop/app → db.shop-db',
      'Deployment/shop/web → db.shop-db',
      'Service/shop-db/pay → api.payments',
    ]);
  });
});

describe('classifyDependencies', () => {
  const references = findReferences(
    [
      object([
        'db.shop-db.svc', // another source, restored with it
        'cache.shop-db.svc', // another source, but its copy has no such Service
        'api.payments.svc', // outside the restore, ready
        'ledger.payments.svc', // outside, no endpoints
        'gone.payments.svc', // outside, absent
        'old.payments.svc', // outside, ExternalName
        'web.shop.svc', // its own source: restored with it (strict), production (none)
        'db.sb-db.svc', // a sandbox of this run by name (rewritten)
        'kubernetes.default.svc', // could not be read
      ]),
    ],
    run,
  );
  const states = new Map<string, ServiceState>([
    [serviceKey('sb-db', 'db'), { state: 'noEndpoints' }],
    [serviceKey('sb-shop', 'web'), { state: 'ready' }],
    [serviceKey('sb-db', 'cache'), { state: 'absent' }],
    [serviceKey('payments', 'api'), { state: 'ready' }],
    [serviceKey('payments', 'ledger'), { state: 'noEndpoints' }],
    [serviceKey('payments', 'gone'), { state: 'absent' }],
    [serviceKey('payments', 'old'), { state: 'externalName', externalName: 'old.example.com' }],
    [serviceKey('default', 'kubernetes'), { state: 'unknown', message: 'Forbidden: no' }],
  ]);
  const byTarget = Object.fromEntries(
    classifyDependencies(references, run, states).map((dependency) => [dependency.to, dependency]),
  );

  it.each<[string, Dependency['status']]>([
    ['db.shop-db', 'restored'],
    ['cache.shop-db', 'missing'],
    ['api.payments', 'reachable'],
    ['ledger.payments', 'unreachable'],
    ['gone.payments', 'unreachable'],
    ['old.payments', 'reachable'],
    ['web.shop', 'restored'],
    ['db.sb-db', 'restored'],
    ['kubernetes.default', 'unreachable'],
  ])('%s is %s', (to, status) => {
    expect(byTarget[to]?.status).toBe(status);
  });

  it('says where the copy is when the value still names a source namespace', () => {
    expect(byTarget['web.shop']?.message).toBe(
      'restored in sb-shop; the value still names shop (the strict NetworkPolicy keeps the copy from reaching it)',
    );
    expect(byTarget['db.shop-db']?.message).toBe(
      'restored in sb-db; the value still names shop-db (the strict NetworkPolicy keeps the copy from reaching it)',
    );
    expect(byTarget['db.sb-db']?.message).toBeUndefined();
    expect(byTarget['cache.shop-db']?.message).toBe('no Service cache in sandbox sb-db');
    expect(byTarget['kubernetes.default']?.message).toBe('could not read Service kubernetes.default: Forbidden: no');
  });

  it('looks up a source namespace only in its sandbox copy, never in production', () => {
    const own = references.find((reference) => reference.namespace === 'shop')!;
    expect(lookupTarget(own, run)).toEqual({ namespace: 'sb-shop', service: 'web' });
    expect(lookupTarget(references.find((reference) => reference.service === 'cache')!, run)).toEqual({ namespace: 'sb-db', service: 'cache' });
  });

  describe('with networkIsolation none', () => {
    const open = { ...run, isolation: 'none' as const };
    const classified = Object.fromEntries(classifyDependencies(references, open, states).map((dependency) => [dependency.to, dependency]));

    it('fails every reference naming a source namespace: the copy would reach production', () => {
      expect(classified['web.shop']).toMatchObject({
        status: 'production',
        message: 'names source namespace shop and networkIsolation is none: the restored copy in sb-shop would talk to production',
      });
      expect(classified['db.shop-db']?.status).toBe('production');
      expect(classified['api.payments']?.status).toBe('reachable');
      expect(classified['db.sb-db']?.status).toBe('restored');
    });

    it('reads nothing for them', () => {
      expect(lookupTarget(references.find((reference) => reference.namespace === 'shop')!, open)).toBeUndefined();
      expect(lookupTarget(references.find((reference) => reference.namespace === 'shop-db')!, open)).toBeUndefined();
    });
  });
});

describe('reportedDependencies', () => {
  it('puts failed ones first and keeps at most the cap', () => {
    const many: Dependency[] = Array.from({ length: 40 }, (_, index) => ({
      from: `ConfigMap/shop/c${index}`,
      to: 'db.shop-db',
      status: index === 39 ? 'production' : 'restored',
    }));
    const reported = reportedDependencies(many);
    expect(reported).toHaveLength(MAX_REPORTED_DEPENDENCIES);
    expect(reported[0]?.from).toBe('ConfigMap/shop/c39');
  });
});
