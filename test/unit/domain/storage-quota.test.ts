// Issue 27: every sandbox gets the ResourceQuota rehearsal-sandbox-storage, whose limits are the
// installation's settings, validated at start-up with a message naming the variable.
import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from '../../../server/config.js';
import {
  isQuantity,
  quotaSynced,
  refusedByStorageQuota,
  storageQuotaHard,
  storageQuotaObject,
} from '../../../server/domain/run/storage-quota.js';

describe('sandbox storage quota settings', () => {
  it.each([
    [{}, { storage: '100Gi', claims: 20 }],
    [{ REHEARSAL_SANDBOX_STORAGE_QUOTA: '1Gi' }, { storage: '1Gi', claims: 20 }],
    [{ REHEARSAL_SANDBOX_STORAGE_QUOTA: '500G', REHEARSAL_SANDBOX_CLAIM_QUOTA: '3' }, { storage: '500G', claims: 3 }],
    [{ REHEARSAL_SANDBOX_STORAGE_QUOTA: '1.5Ti', REHEARSAL_SANDBOX_CLAIM_QUOTA: '0' }, { storage: '1.5Ti', claims: 0 }],
    [{ REHEARSAL_SANDBOX_STORAGE_QUOTA: '2e9', REHEARSAL_SANDBOX_CLAIM_QUOTA: ' 40 ' }, { storage: '2e9', claims: 40 }],
  ])('reads %j as %j', (env, expected) => {
    expect(loadConfig(env).sandboxStorageQuota).toEqual(expected);
  });

  it.each([
    [{ REHEARSAL_SANDBOX_STORAGE_QUOTA: '100GB' }, 'REHEARSAL_SANDBOX_STORAGE_QUOTA: must be a Kubernetes quantity'],
    [{ REHEARSAL_SANDBOX_STORAGE_QUOTA: '' }, 'REHEARSAL_SANDBOX_STORAGE_QUOTA: must be a Kubernetes quantity'],
    [{ REHEARSAL_SANDBOX_STORAGE_QUOTA: '-1Gi' }, 'REHEARSAL_SANDBOX_STORAGE_QUOTA: must be a Kubernetes quantity'],
    [{ REHEARSAL_SANDBOX_STORAGE_QUOTA: 'lots' }, 'REHEARSAL_SANDBOX_STORAGE_QUOTA: must be a Kubernetes quantity'],
    [{ REHEARSAL_SANDBOX_CLAIM_QUOTA: 'twenty' }, 'REHEARSAL_SANDBOX_CLAIM_QUOTA: must be a whole number of claims'],
    [{ REHEARSAL_SANDBOX_CLAIM_QUOTA: '2.5' }, 'REHEARSAL_SANDBOX_CLAIM_QUOTA: must be a whole number of claims'],
    [{ REHEARSAL_SANDBOX_CLAIM_QUOTA: '-1' }, 'REHEARSAL_SANDBOX_CLAIM_QUOTA: must be a whole number of claims'],
  ])('refuses %j, naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('lists both bad keys in one message', () => {
    expect(() => loadConfig({ REHEARSAL_SANDBOX_STORAGE_QUOTA: 'x', REHEARSAL_SANDBOX_CLAIM_QUOTA: 'y' })).toThrow(
      /REHEARSAL_SANDBOX_STORAGE_QUOTA[\s\S]*\n {2}REHEARSAL_SANDBOX_CLAIM_QUOTA/,
    );
  });
});

describe('isQuantity', () => {
  it.each(['100Gi', '1Gi', '500M', '1.5Ti', '0', '1024', '.5Gi', '2e9', '1E3', '100m', '7Ei'])('accepts %s', (text) => {
    expect(isQuantity(text)).toBe(true);
  });
  it.each(['', 'Gi', '100GB', '100 Gi', '-1Gi', '+1Gi', '1Gi ', '1.2.3', '10gi', '1Zi'])('refuses %j', (text) => {
    expect(isQuantity(text)).toBe(false);
  });
});

describe('the quota object', () => {
  const labels = { 'rehearsal.dev/managed-by': 'rehearsal', 'rehearsal.dev/run': 'abcde' };

  it.each([
    [{ storage: '100Gi', claims: 20 }, { 'requests.storage': '100Gi', persistentvolumeclaims: '20' }],
    [{ storage: '1Gi', claims: 0 }, { 'requests.storage': '1Gi', persistentvolumeclaims: '0' }],
  ])('limits %j as spec.hard %j', (limits, hard) => {
    expect(storageQuotaHard(limits)).toEqual(hard);
    expect(storageQuotaObject(limits, labels)).toEqual({
      metadata: { name: 'rehearsal-sandbox-storage', labels },
      spec: { hard },
    });
  });

  it('copies the labels (the caller may reuse its own object)', () => {
    const object = storageQuotaObject({ storage: '1Gi', claims: 1 }, labels);
    expect(object.metadata.labels).not.toBe(labels);
  });
});

describe('quotaSynced', () => {
  const hard = { 'requests.storage': '1Gi', persistentvolumeclaims: '2' };
  const zero = { 'requests.storage': '0', persistentvolumeclaims: '0' };
  it.each([
    ['no status (just created)', undefined, false],
    ['an empty status', {}, false],
    ['status.hard without status.used', { hard }, false],
    ['one limit of two', { hard: { 'requests.storage': '1Gi' }, used: { 'requests.storage': '0' } }, false],
    ['hard set, usage not counted yet', { hard, used: {} }, false],
    ['hard and used for every limit', { hard, used: zero }, true],
    // An older limit still counts as synced: admission knows the quota and counts against it.
    ['an older limit, counted', { hard: { 'requests.storage': '2Gi', persistentvolumeclaims: '5' }, used: zero }, true],
  ])('%s → %s', (_name, status, synced) => {
    expect(quotaSynced({ spec: { hard }, ...(status ? { status } : {}) })).toBe(synced);
  });
});

describe('refusedByStorageQuota', () => {
  it.each([
    ['persistentvolumeclaims "data" is forbidden: exceeded quota: rehearsal-sandbox-storage, requested: requests.storage=5Gi, used: requests.storage=0, limited: requests.storage=1Gi', true],
    ['pods "web" is forbidden: exceeded quota: team-quota, requested: pods=1', false],
    ['error restoring persistentvolumeclaims/shop/data: persistentvolumeclaims "data" is forbidden: exceeded quota: rehearsal-sandbox-storage', true],
    ['', false],
  ])('%j → %s', (message, refused) => {
    expect(refusedByStorageQuota(message)).toBe(refused);
  });
});
