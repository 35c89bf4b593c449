// The write-once store of issue 33's evidence anchors, proven against a real S3 server with Object
// Lock (versitygw, test/helpers/object-lock-store.ts) through our own S3 client only. No cluster is
// needed. What it shows: a version put with a COMPLIANCE retention cannot be deleted, replaced or
// have its retention shortened before the date; an overwrite or a plain DELETE only adds a version
// or a delete marker on top, and the listing of versions shows every one of them; once the date
// has passed the version can go. The client sends no x-amz-bypass-governance-retention header at
// all (COMPLIANCE allows no bypass, and GOVERNANCE, which does, is never written).
// Lane: node (creates no pods: test/run-all.sh runs it beside the real node's suites)
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { S3Client, S3Error, type PutRetention, type S3ObjectVersion } from '../../server/archive/s3-client.js';
import { startObjectLockStore, type ObjectLockStore } from '../helpers/object-lock-store.js';

/** A whole second: S3 keeps retain-until dates to the second on some servers. */
const inSeconds = (seconds: number): Date => new Date((Math.floor(Date.now() / 1000) + seconds) * 1000);
const aDay = (): PutRetention => ({ mode: 'COMPLIANCE', retainUntil: inSeconds(24 * 3600) });
const MAX = 1024 * 1024;

async function refusal(promise: Promise<unknown>): Promise<S3Error> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof S3Error) return error;
    throw error;
  }
  throw new Error('expected the S3 server to refuse, but it accepted');
}

describe('Object Lock on a real S3 server (versitygw), through our S3 client', () => {
  let store: ObjectLockStore;
  let client: S3Client;

  beforeAll(async () => {
    store = await startObjectLockStore('evidence-anchors');
    client = new S3Client(store.location);
  });

  afterAll(async () => {
    await store?.stop();
  });

  it('reads the bucket as Object Lock enabled, a bucket without it as disabled, and a missing bucket as an error', async () => {
    expect(await client.getObjectLockConfiguration()).toEqual({ enabled: true });
    const plain = new S3Client(await store.createBucket('no-object-lock', { objectLock: false }));
    expect(await plain.getObjectLockConfiguration()).toEqual({ enabled: false });
    const missing = await refusal(new S3Client({ ...store.location, bucket: 'no-such-bucket' }).getObjectLockConfiguration());
    expect({ status: missing.status, code: missing.code }).toEqual({ status: 404, code: 'NoSuchBucket' });
  });

  it('stores a COMPLIANCE retention with the version and reads it back; a version put without one has none', async () => {
    const retention = aDay();
    const versionId = await client.putObject('retention/locked', Buffer.from('anchor'), 'application/json', { retention });
    expect(versionId).toMatch(/^\S+$/);
    expect(await client.getObjectRetention('retention/locked', versionId)).toEqual(retention);
    expect(await client.getObjectRetention('retention/locked')).toEqual(retention);
    const unlocked = await client.putObject('retention/unlocked', Buffer.from('plain'));
    expect(await client.getObjectRetention('retention/unlocked', unlocked)).toBeUndefined();
  });

  it('refuses to delete a retained version, whose bytes stay the same', async () => {
    const body = Buffer.from('{"root":"3f1c0d9e"}');
    const versionId = (await client.putObject('delete/locked', body, 'application/json', { retention: aDay() }))!;
    const refused = await refusal(client.deleteObject('delete/locked', versionId));
    expect({ status: refused.status, code: refused.code }).toEqual({ status: 403, code: 'AccessDenied' });
    expect(refused.message).toBe(`S3 DELETE delete/locked version ${versionId} answered 403 AccessDenied`);
    expect(await client.getObject('delete/locked', MAX, versionId)).toEqual(body);
    expect(await client.listObjectVersions('delete/locked')).toEqual([{ key: 'delete/locked', versionId, isLatest: true, deleteMarker: false, size: body.length }]);
  });

  it('lets a retention be extended and never shortened', async () => {
    const retention = aDay();
    const versionId = (await client.putObject('retention/shorten', Buffer.from('anchor'), 'application/json', { retention }))!;
    const earlier = { mode: 'COMPLIANCE', retainUntil: new Date(retention.retainUntil.getTime() - 3600_000) } as const;
    const refused = await refusal(client.putObjectRetention('retention/shorten', versionId, earlier));
    expect({ status: refused.status, code: refused.code }).toEqual({ status: 403, code: 'AccessDenied' });
    expect(await client.getObjectRetention('retention/shorten', versionId)).toEqual(retention);
    const later = { mode: 'COMPLIANCE', retainUntil: new Date(retention.retainUntil.getTime() + 3600_000) } as const;
    await client.putObjectRetention('retention/shorten', versionId, later);
    expect(await client.getObjectRetention('retention/shorten', versionId)).toEqual(later);
  });

  it('makes an overwrite a new version: the retained one stays readable by its id and listed', async () => {
    const original = Buffer.from('original anchor');
    const retention = aDay();
    const first = (await client.putObject('overwrite/key', original, 'application/json', { retention }))!;
    // versitygw accepts the PUT (S3 does too under versioning): it replaces nothing.
    const second = await client.putObject('overwrite/key', Buffer.from('forged'));
    expect(second).toMatch(/^\S+$/);
    expect(second).not.toBe(first);
    expect((await client.getObject('overwrite/key', MAX))?.toString()).toBe('forged');
    expect(await client.getObject('overwrite/key', MAX, first)).toEqual(original);
    expect(await client.getObjectRetention('overwrite/key', first)).toEqual(retention);
    expect(await client.getObjectRetention('overwrite/key', second)).toBeUndefined();
    expect(await client.listObjectVersions('overwrite/key')).toEqual([
      { key: 'overwrite/key', versionId: second, isLatest: true, deleteMarker: false, size: 6 },
      { key: 'overwrite/key', versionId: first, isLatest: false, deleteMarker: false, size: original.length },
    ]);
  });

  it('makes a DELETE without a version id a delete marker: the retained version stays', async () => {
    const original = Buffer.from('anchor under a marker');
    const first = (await client.putObject('marker/key', original, 'application/json', { retention: aDay() }))!;
    await client.deleteObject('marker/key');
    expect(await client.getObject('marker/key', MAX)).toBeUndefined();
    const versions = await client.listObjectVersions('marker/key');
    expect(versions).toEqual([
      { key: 'marker/key', versionId: expect.any(String), isLatest: true, deleteMarker: true, size: 0 },
      { key: 'marker/key', versionId: first, isLatest: false, deleteMarker: false, size: original.length },
    ]);
    expect(versions[0]!.versionId).not.toBe(first);
    expect(await client.getObject('marker/key', MAX, first)).toEqual(original);
  });

  it('lists every version and delete marker page by page, each once', async () => {
    for (const body of ['a1', 'a2', 'a3']) await client.putObject('paged/a', Buffer.from(body));
    for (const body of ['b1', 'b2']) await client.putObject('paged/b', Buffer.from(body));
    await client.deleteObject('paged/b');
    const byVersion = (list: S3ObjectVersion[]) => [...list].sort((a, b) => a.versionId.localeCompare(b.versionId));
    const whole = await client.listObjectVersions('paged/');
    expect(whole.map((version) => `${version.key} ${version.deleteMarker ? 'marker' : version.size}${version.isLatest ? ' latest' : ''}`).sort()).toEqual([
      'paged/a 2',
      'paged/a 2',
      'paged/a 2 latest',
      'paged/b 2',
      'paged/b 2',
      'paged/b marker latest',
    ]);
    expect(new Set(whole.map((version) => version.versionId)).size).toBe(6);
    // Pages of two: versitygw repeats a page's last version when that is a key's latest.
    const paged = await client.listObjectVersions('paged/', 2);
    expect(paged.map((version) => version.key)).toEqual(whole.map((version) => version.key));
    expect(byVersion(paged)).toEqual(byVersion(whole));
  });

  it('lets a version go once its retention has passed', async () => {
    const retainUntil = inSeconds(3);
    const versionId = (await client.putObject('expiry/short', Buffer.from('brief'), 'application/json', { retention: { mode: 'COMPLIANCE', retainUntil } }))!;
    const refused = await refusal(client.deleteObject('expiry/short', versionId));
    // The refusal above proves the lock only if it came before the date.
    expect(Date.now()).toBeLessThan(retainUntil.getTime());
    expect(refused.status).toBe(403);
    await new Promise((resolve) => setTimeout(resolve, retainUntil.getTime() - Date.now() + 1_000));
    await client.deleteObject('expiry/short', versionId);
    expect(await client.getObject('expiry/short', MAX, versionId)).toBeUndefined();
    expect(await client.listObjectVersions('expiry/short')).toEqual([]);
  });
});
