// The license in effect from the watched Secret: verified once per change, evaluated with the
// clock on every read, community with the reason logged (once per change of state) otherwise.
import { describe, expect, it } from '@jest/globals';
import { KubeConfig, type V1Secret } from '@kubernetes/client-node';
import pino from 'pino';
import { LicenseWatch } from '../../../server/license/license-watch.js';
import { numericDate, ringOf, sign, vendorKey } from '../../fixtures/evidence/licenses.js';

const vendor = vendorKey('vendor-2026');
const other = vendorKey('vendor-2026');

function secretWith(token: string | undefined, resourceVersion = String(Math.random())): V1Secret {
  return {
    metadata: { name: 'rehearsal-license', namespace: 'rehearsal-system', resourceVersion },
    data: token === undefined ? {} : { license: Buffer.from(token).toString('base64') },
  };
}

function setup(now = new Date('2026-03-15T12:00:00Z')) {
  const clock = { now };
  const lines: { level: number; msg: string; reason?: string; tier?: string }[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  let feed: (secret: V1Secret | undefined) => void = () => undefined;
  let initial: V1Secret | undefined;
  const watch = new LicenseWatch({
    kubeConfig: new KubeConfig(),
    namespace: 'rehearsal-system',
    loadKeys: () => ringOf(vendor),
    log,
    now: () => clock.now,
    watch: (handler) => {
      feed = handler;
      return {
        start: async () => handler(initial),
        stop: () => undefined,
      };
    },
  });
  return {
    watch,
    clock,
    lines,
    setInitial: (secret: V1Secret | undefined) => (initial = secret),
    change: async (secret: V1Secret | undefined) => {
      feed(secret);
      await watch.settled();
    },
  };
}

describe('LicenseWatch', () => {
  it('without the Secret: community, with the reason logged as a warning', async () => {
    const { watch, lines } = setup();
    await watch.start();
    const { license, reason } = watch.current();
    expect(license).toEqual({
      tier: 'community',
      expiresAt: null,
      trialEndsAt: null,
      isExpired: false,
      isTrialing: false,
      trialDaysLeft: 0,
      features: [],
    });
    expect(reason).toBe('no license installed (Secret rehearsal-system/rehearsal-license does not exist)');
    expect(lines.filter((line) => line.level === 40).map((line) => line.msg)).toEqual([
      `license not in effect, running as community: ${reason}`,
    ]);
  });

  it('takes a new Secret into effect on the change event, and logs the new state once', async () => {
    const { watch, lines, change, setInitial } = setup();
    setInitial(secretWith(await sign(vendor, { tier: 'pro' })));
    await watch.start();
    expect(watch.current().license).toMatchObject({ tier: 'pro', features: ['compliancePage'] });
    await change(secretWith(await sign(vendor, { tier: 'enterprise', customer: 'Acme' })));
    watch.current();
    watch.current();
    expect(watch.current()).toMatchObject({ license: { tier: 'enterprise' }, licensee: 'Acme' });
    expect(lines.filter((line) => line.level === 30).map((line) => line.msg)).toEqual([
      'license in effect: pro',
      'license in effect: enterprise',
    ]);
  });

  it('a Secret without the key, a forged token, a deleted Secret: community with each reason', async () => {
    const { watch, change } = setup();
    await watch.start();
    await change(secretWith(undefined));
    expect(watch.current().reason).toBe(
      'no license installed (Secret rehearsal-system/rehearsal-license has no key "license")',
    );
    await change(secretWith(await sign(other, { tier: 'enterprise' })));
    expect(watch.current()).toMatchObject({
      license: { tier: 'community', isExpired: false },
      reason: 'license signature does not verify with key vendor-2026',
    });
    await change(secretWith('not a jws'));
    expect(watch.current().reason).toContain('malformed');
    await change(secretWith(await sign(vendor, { tier: 'enterprise' })));
    expect(watch.current().license.tier).toBe('enterprise');
    await change(undefined);
    expect(watch.current().reason).toContain('does not exist');
  });

  it('expires at its instant without any change in the cluster', async () => {
    const { watch, clock, change, lines } = setup(new Date('2026-03-15T12:00:00Z'));
    await watch.start();
    await change(
      secretWith(await sign(vendor, { tier: 'enterprise', exp: numericDate('2026-03-15T13:00:00Z') })),
    );
    expect(watch.current().license).toMatchObject({
      tier: 'enterprise',
      expiresAt: '2026-03-15T13:00:00.000Z',
    });
    clock.now = new Date('2026-03-15T13:00:00Z');
    expect(watch.current()).toMatchObject({
      license: { tier: 'community', isExpired: true, expiresAt: '2026-03-15T13:00:00.000Z' },
      reason: 'enterprise license expired at 2026-03-15T13:00:00.000Z',
    });
    expect(lines.at(-1)!.msg).toBe(
      'license not in effect, running as community: enterprise license expired at 2026-03-15T13:00:00.000Z',
    );
  });

  it('counts trial days and ends the trial at trialEndsAt', async () => {
    const { watch, clock, change } = setup(new Date('2026-03-15T12:00:00Z'));
    await watch.start();
    await change(secretWith(await sign(vendor, { tier: 'enterprise', trialEndsAt: '2026-03-29T12:00:00Z' })));
    expect(watch.current().license).toMatchObject({
      isTrialing: true,
      trialDaysLeft: 14,
      tier: 'enterprise',
    });
    clock.now = new Date('2026-03-29T12:00:00Z');
    expect(watch.current().license).toMatchObject({ tier: 'community', isTrialing: false, isExpired: true });
  });

  it('the latest change wins even when an earlier verification finishes later', async () => {
    const { watch, change } = setup();
    await watch.start();
    const pro = await sign(vendor, { tier: 'pro' });
    const enterprise = await sign(vendor, { tier: 'enterprise' });
    const feedAll = change(secretWith(pro));
    await Promise.all([feedAll, change(secretWith(enterprise))]);
    expect(watch.current().license.tier).toBe('enterprise');
  });

  it('a trust store that cannot be loaded is a start-up error', async () => {
    const watch = new LicenseWatch({
      kubeConfig: new KubeConfig(),
      namespace: 'rehearsal-system',
      loadKeys: () => Promise.reject(new Error('license public key file /nope: ENOENT')),
      log: pino({ level: 'silent' }),
      now: () => new Date(),
      watch: () => ({ start: async () => undefined, stop: () => undefined }),
    });
    await expect(watch.start()).rejects.toThrow('ENOENT');
  });
});
