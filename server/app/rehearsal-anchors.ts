// Evidence anchors for the composition root (issue 33): the bucket, the timestamp authority and
// the writer, built from config.anchors; undefined when anchors are off. The writer runs while this
// replica leads (rehearsal-engine.ts starts and stops it, and calls it after an archive pass that
// wrote a segment).
import { readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import type { ChainHead } from '../../protocol/evidence/anchor/checkpoint.js';
import { reportEvidenceDigest } from '../domain/read-models/report-summary.js';
import type { AnchorConfig } from '../config.js';
import { AnchorAudit, type AuditedChain } from '../evidence/anchor/anchor-audit.js';
import type { AnchorBucket } from '../evidence/anchor/anchor-bucket.js';
import { S3Client, type S3Location } from '../archive/s3-client.js';
import { AnchorWriter } from '../evidence/anchor/anchor-writer.js';
import type { EvidenceKeyStore } from '../evidence/evidence-keys.js';
import { requestTimestamp } from '../evidence/timestamp/timestamp-client.js';
import type { RehearsalBasics } from './rehearsal-basics.js';

/** Every certificate in a PEM file (the authority's CA, and intermediates if given). */
export function certificatesFromPemFile(file: string): X509Certificate[] {
  const text = readFileSync(file, 'utf8');
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error(`${file}: no CERTIFICATE block (REHEARSAL_TSA_CA_FILE must be the authority's CA certificate in PEM)`);
  return blocks.map((block) => new X509Certificate(block));
}

export interface AnchorDeps extends Pick<RehearsalBasics, 'config' | 'cache' | 'metrics' | 'log' | 'now'> {
  evidenceKeys: EvidenceKeyStore;
}

export function createAnchorWriter({ config, cache, metrics, log, now, evidenceKeys }: AnchorDeps): AnchorWriter | undefined {
  const anchors: AnchorConfig | undefined = config.anchors;
  if (!anchors) return undefined;
  const bucket = s3AnchorBucket({
    endpoint: anchors.endpoint,
    bucket: anchors.bucket,
    region: anchors.region,
    accessKeyId: anchors.accessKeyId,
    secretAccessKey: anchors.secretAccessKey,
    ...(anchors.sessionToken ? { sessionToken: anchors.sessionToken } : {}),
  });
  const authorities = anchors.tsa ? certificatesFromPemFile(anchors.tsa.caFile) : [];
  const tsa = anchors.tsa;
  const audit = new AnchorAudit({
    bucket,
    prefix: anchors.prefix,
    keyRing: () => evidenceKeys.keyRing(),
    authorities,
    log: log.child({ component: 'anchor-audit' }),
  });
  const heads = (): ChainHead[] =>
    cache.listTests().flatMap((test) => {
      const anchor = test.status?.evidenceAnchor;
      return anchor && test.metadata.uid ? [{ testUid: test.metadata.uid, sequence: anchor.sequence, digest: anchor.digest }] : [];
    });
  const chains = function* (): Iterable<AuditedChain> {
    for (const test of cache.listTests()) {
      if (!test.metadata.uid) continue;
      const testKey = `${test.metadata.namespace}/${test.metadata.name}`;
      yield {
        test: testKey,
        uid: test.metadata.uid,
        digests: () => cache.reportIndex.runsOfTest(testKey).map((run) => reportEvidenceDigest(run.report)),
        reports: () => cache.fullReportsOfTest(testKey).filter((report) => (report.spec.testRef.uid ?? test.metadata.uid) === test.metadata.uid),
      };
    }
  };
  return new AnchorWriter({
    bucket,
    audit,
    prefix: anchors.prefix,
    installation: `${config.clusterName ?? 'cluster'}/${config.namespace}`,
    retentionSeconds: anchors.retentionSeconds,
    intervalSeconds: anchors.intervalSeconds,
    heads,
    chains,
    signer: () => evidenceKeys.signingKey()?.key,
    ...(tsa
      ? { timestamp: (data: Buffer) => requestTimestamp(data, { url: new URL(tsa.url), trusted: authorities, ...(tsa.policy ? { policy: tsa.policy } : {}) }) }
      : {}),
    metrics,
    log: log.child({ component: 'anchors' }),
    now,
  });
}

/** The anchor bucket over Rehearsal's own S3 client (server/archive/s3-client.ts). */
export function s3AnchorBucket(location: S3Location): AnchorBucket {
  const client = new S3Client(location);
  return {
    where: `bucket ${location.bucket} at ${location.endpoint}`,
    async objectLockEnabled() {
      return (await client.getObjectLockConfiguration()).enabled;
    },
    async putLocked(key, body, retainUntil) {
      return client.putObject(key, body, 'application/json', { retention: { mode: 'COMPLIANCE', retainUntil } });
    },
    async versions(prefix) {
      return (await client.listObjectVersions(prefix)).map((version) => ({
        key: version.key,
        versionId: version.versionId,
        deleteMarker: version.deleteMarker,
      }));
    },
    get(key, versionId, maxBytes) {
      return client.getObject(key, maxBytes, versionId);
    },
  };
}
