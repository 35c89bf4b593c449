// The stored diagnosis stays within a few KB even when its text does not compress, and reading one
// back is bounded at every step: whatever sits in the object (a gzip bomb, a truncated stream, huge
// or deeply nested JSON, another run's diagnosis) is refused with DiagnosisUnreadableError, never
// inflated or parsed without limit (issue 26).
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from '@jest/globals';
import { diagnose, type RunDiagnosis } from '../../../server/domain/diagnosis/diagnosis.js';
import {
  compressWithinBound,
  decodeDiagnosis,
  DiagnosisStore,
  DiagnosisUnreadableError,
  diagnosisName,
  encodeDiagnosis,
  MAX_INFLATED_BYTES,
  MAX_STORED_BYTES,
} from '../../../server/triage/diagnosis-store.js';

const run = { namespace: 'team-a', name: 'shop-x1y2z', runId: 'x1y2z' };

function sampleDiagnosis(): RunDiagnosis {
  return diagnose(
    { sandboxes: [{ source: 'shop', sandbox: 'rehearsal-shop-x1y2z' }], pods: [], events: [], claims: [], externalNames: [], missingPullSecrets: [], logs: [] },
    { test: { name: 'shop', namespace: 'team-a' }, runId: 'x1y2z', report: 'shop-x1y2z', result: 'fail', collectedAt: new Date(0) },
  );
}

const base64 = (bytes: Buffer) => bytes.toString('base64');

describe('compressWithinBound', () => {
  it('cuts incompressible detail until the gzip is at most MAX_STORED_BYTES (32 KiB), keeping the hints', () => {
    const sandbox = 'rehearsal-shop-x1y2z';
    const noise = () => randomBytes(120).toString('base64');
    const diagnosis = diagnose(
      {
        sandboxes: [{ source: 'shop', sandbox }],
        pods: Array.from({ length: 20 }, (_, index) => ({
          namespace: sandbox,
          name: `web-${index}`,
          phase: 'Running',
          ready: false,
          imagePullSecrets: [],
          containers: [{ name: 'web', ready: false, restartCount: 3, state: 'waiting' as const, reason: 'CrashLoopBackOff', message: noise() }],
        })),
        events: Array.from({ length: 25 }, (_, index) => ({ namespace: sandbox, reason: 'BackOff', message: noise(), object: `Pod/web-${index}`, count: 1, lastSeen: '' })),
        claims: [],
        externalNames: [],
        missingPullSecrets: [],
        logs: Array.from({ length: 10 }, (_, index) => ({ namespace: sandbox, pod: `web-${index}`, container: 'web', lines: Array.from({ length: 100 }, noise) })),
      },
      { test: { name: 'shop', namespace: 'team-a' }, runId: 'x1y2z', report: 'shop-x1y2z', result: 'fail', collectedAt: new Date() },
    );
    const { diagnosis: stored, compressed } = compressWithinBound(diagnosis);
    expect(compressed.length).toBeLessThanOrEqual(MAX_STORED_BYTES);
    expect(stored.truncated).toBe(true);
    expect(stored.hints.map((hint) => hint.code)).toEqual(['crash-loop']);
    expect(stored.pods.length).toBeGreaterThan(0);
    // What was stored reads back.
    expect(decodeDiagnosis(base64(compressed), run)).toEqual(stored);
  });
});

describe('decodeDiagnosis (fuzz: what a writer of the object could put there)', () => {
  const refused = (text: string) => () => decodeDiagnosis(text, run);

  it('reads back what the server stored', () => {
    expect(decodeDiagnosis(base64(encodeDiagnosis(sampleDiagnosis())), run)).toEqual(sampleDiagnosis());
  });

  it('refuses a gzip bomb without inflating it: 1 GiB of zeros in 1 MiB', () => {
    // 1,024 gzip members of 1 MiB of zeros each (gunzip reads concatenated members as one stream).
    const bomb = Buffer.concat(Array(1024).fill(gzipSync(Buffer.alloc(1024 * 1024), { level: 9 })));
    expect(bomb.length).toBeLessThan(1.1 * 1024 * 1024);
    const before = process.memoryUsage().arrayBuffers;
    expect(refused(base64(bomb))).toThrow(DiagnosisUnreadableError);
    expect(refused(base64(bomb))).toThrow(/larger than|inflates to more than/);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 * 1024 * 1024);
  });

  it('refuses an object that inflates past the bound even when it is small compressed', () => {
    const tooBig = gzipSync(Buffer.from(JSON.stringify({ ...sampleDiagnosis(), logsNote: 'x'.repeat(MAX_INFLATED_BYTES) })));
    expect(tooBig.length).toBeLessThan(MAX_STORED_BYTES);
    expect(refused(base64(tooBig))).toThrow(/inflates to more than/);
  });

  it('refuses truncated and corrupted gzip streams', () => {
    const good = encodeDiagnosis(sampleDiagnosis());
    for (let cut = 0; cut < good.length; cut += 7) {
      expect(refused(base64(good.subarray(0, cut)))).toThrow(DiagnosisUnreadableError);
    }
    for (let trial = 0; trial < 200; trial += 1) {
      const corrupted = Buffer.from(good);
      const at = 10 + (trial % (good.length - 18));
      corrupted[at] = corrupted[at]! ^ (1 + (trial % 255));
      try {
        decodeDiagnosis(base64(corrupted), run);
      } catch (error) {
        expect(error).toBeInstanceOf(DiagnosisUnreadableError);
      }
    }
    expect(refused('not base64 at all!')).toThrow(DiagnosisUnreadableError);
    expect(refused(base64(randomBytes(4096)))).toThrow(DiagnosisUnreadableError);
  });

  it('refuses deeply nested JSON before parsing it', () => {
    const deep = gzipSync(Buffer.from(`{"test":{},"sandboxes":${'['.repeat(10_000)}${']'.repeat(10_000)}}`));
    expect(refused(base64(deep))).toThrow(/deeper than/);
  });

  it('refuses JSON that is not a diagnosis, or a diagnosis of another run', () => {
    for (const value of ['null', '[]', '"text"', '{}', '{"test":{},"sandboxes":{}}', 'not json']) {
      expect(refused(base64(gzipSync(Buffer.from(value))))).toThrow(DiagnosisUnreadableError);
    }
    const other = { ...sampleDiagnosis(), runId: 'zzzzz', report: 'shop-zzzzz' };
    expect(refused(base64(gzipSync(Buffer.from(JSON.stringify(other)))))).toThrow(/another run/);
    const elsewhere = { ...sampleDiagnosis(), test: { name: 'shop', namespace: 'team-b' } };
    expect(refused(base64(gzipSync(Buffer.from(JSON.stringify(elsewhere)))))).toThrow(/another run/);
  });

  it('refuses an oversized object before decoding it', () => {
    expect(refused('A'.repeat(10 * 1024 * 1024))).toThrow(/larger than/);
  });
});

describe('DiagnosisStore', () => {
  function fakeCore() {
    const objects = new Map<string, { metadata: Record<string, unknown>; binaryData?: Record<string, string> }>();
    const notFound = () => Object.assign(new Error('not found'), { code: 404, body: '{"kind":"Status","code":404,"reason":"NotFound"}' });
    const core = {
      calls: [] as string[],
      createNamespacedConfigMap: async ({ namespace, body }: { namespace: string; body: { metadata: { name: string } } }) => {
        core.calls.push(`create ${namespace}/${body.metadata.name}`);
        objects.set(`${namespace}/${body.metadata.name}`, body as never);
        return body;
      },
      readNamespacedConfigMap: async ({ namespace, name }: { namespace: string; name: string }) => {
        core.calls.push(`read ${namespace}/${name}`);
        const found = objects.get(`${namespace}/${name}`);
        if (!found) throw notFound();
        return found;
      },
      deleteNamespacedConfigMap: async ({ namespace, name }: { namespace: string; name: string }) => {
        core.calls.push(`delete ${namespace}/${name}`);
        if (!objects.delete(`${namespace}/${name}`)) throw notFound();
        return {};
      },
      listNamespacedConfigMap: async ({ namespace }: { namespace: string }) => ({
        items: [...objects.entries()].filter(([key]) => key.startsWith(`${namespace}/`)).map(([, value]) => value),
      }),
      objects,
    };
    return core;
  }

  it('writes and reads only in the server namespace, never beside the report', async () => {
    const core = fakeCore();
    const store = new DiagnosisStore(core as never, 'rehearsal-system');
    const report = { metadata: { name: 'shop-x1y2z', namespace: 'team-a', uid: 'u1' }, spec: { runId: 'x1y2z' } };
    await store.save(report as never, sampleDiagnosis());
    // A tenant's object under the old name beside the report is never read.
    core.objects.set('team-a/shop-x1y2z-diagnosis', { metadata: {}, binaryData: { 'diagnosis.json.gz': 'forged' } });
    expect(await store.load(run)).toEqual(sampleDiagnosis());
    expect(core.calls).toEqual([
      `create rehearsal-system/${diagnosisName('team-a', 'shop-x1y2z')}`,
      'read rehearsal-system/team-a.shop-x1y2z.diagnosis',
    ]);
  });

  it('refuses an object whose annotations name another run', async () => {
    const core = fakeCore();
    const store = new DiagnosisStore(core as never, 'rehearsal-system');
    core.objects.set('rehearsal-system/team-a.shop-x1y2z.diagnosis', {
      metadata: { annotations: { 'rehearsal.dev/report': 'team-a/shop-x1y2z', 'rehearsal.dev/run-id': 'other' } },
      binaryData: { 'diagnosis.json.gz': base64(encodeDiagnosis(sampleDiagnosis())) },
    });
    await expect(store.load(run)).rejects.toThrow(DiagnosisUnreadableError);
  });

  it('sweeps the diagnoses of reports that are gone, sparing young ones', async () => {
    const core = fakeCore();
    const store = new DiagnosisStore(core as never, 'rehearsal-system');
    const old = new Date(0).toISOString();
    const add = (report: string, created: string) =>
      core.objects.set(`rehearsal-system/team-a.${report}.diagnosis`, {
        metadata: { name: `team-a.${report}.diagnosis`, creationTimestamp: created, annotations: { 'rehearsal.dev/report': `team-a/${report}` } },
      });
    add('live-aaaaa', old);
    add('gone-bbbbb', old);
    add('young-ccccc', new Date(1_000_000).toISOString());
    const removed = await store.sweep((_namespace, name) => name === 'live-aaaaa', new Date(1_000_500), 60_000);
    expect(removed).toBe(1);
    expect([...core.objects.keys()].sort()).toEqual([
      'rehearsal-system/team-a.live-aaaaa.diagnosis',
      'rehearsal-system/team-a.young-ccccc.diagnosis',
    ]);
  });
});
