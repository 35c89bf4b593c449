// A real write-once S3 store for tests (issue 33's evidence anchors): versitygw (built and cached
// by test/cluster/build-versitygw.sh) on a free 127.0.0.1 port, its posix backend keeping objects
// as files in a temporary directory, and one bucket created with Object Lock enabled. s3s-fs
// (test/helpers/s3-server.ts) has no Object Lock.
//
// Object Lock needs versioning, which versitygw's posix backend has only with --versioning-dir
// (the old versions live there); a bucket created with Object Lock then has versioning enabled.
// Object metadata (retention, version ids) is kept in user extended attributes, which the
// temporary directory's file system must support (ext4, xfs and btrfs do; tmpfs without
// user_xattr does not — versitygw then fails at the first PUT, and its log says so).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { S3Client, type S3Location } from '../../server/archive/s3-client.js';
import { repoRoot } from './cluster-info.js';
import { closedLoopbackPort } from './kube.js';

export interface ObjectLockStore {
  /** The bucket (Object Lock enabled, hence versioned) and the root account's credentials. */
  location: S3Location;
  /** Where versitygw's output goes (test/.tmp/object-lock-store/). */
  logFile: string;
  /** Another bucket on the same server, with or without Object Lock (one without has no versioning either). */
  createBucket(name: string, options: { objectLock: boolean }): Promise<S3Location>;
  stop(): Promise<void>;
}

const LOG_LINES = 100;

/** The cached versitygw binary (built once per version). */
export function versitygwBinary(): string {
  return execFileSync('bash', [path.join(repoRoot, 'test/cluster/build-versitygw.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
}

/** CreateBucket is no call of the product's (it never creates buckets); the helper signs its own. */
class BucketCreator extends S3Client {
  async createBucket(objectLock: boolean): Promise<void> {
    const response = await this.request('PUT', undefined, {}, undefined, objectLock ? { 'x-amz-bucket-object-lock-enabled': 'true' } : {});
    await response.body?.cancel().catch(() => undefined);
  }
}

/** Starts versitygw, waits until it answers its health check and creates `bucket` with Object Lock. */
export async function startObjectLockStore(bucket = 'evidence-anchors', options: { timeoutMs?: number } = {}): Promise<ObjectLockStore> {
  const binary = versitygwBinary();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rehearsal-object-lock-'));
  const root = path.join(dir, 'root');
  const versions = path.join(dir, 'versions');
  mkdirSync(root);
  mkdirSync(versions);
  const logDir = path.join(repoRoot, 'test/.tmp/object-lock-store');
  mkdirSync(logDir, { recursive: true });
  const port = await closedLoopbackPort();
  const logFile = path.join(logDir, `versitygw-${port}.log`);
  const location: S3Location = {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    region: 'us-east-1',
    accessKeyId: 'object-lock-test',
    secretAccessKey: randomBytes(18).toString('base64url'),
  };
  const lines: string[] = [];
  const child: ChildProcess = spawn(
    binary,
    ['--port', `127.0.0.1:${port}`, '--region', location.region, '--health', '/health', 'posix', '--versioning-dir', versions, root],
    // The root account's keys through the environment, not the command line (ps shows that).
    {
      env: { PATH: process.env.PATH, ROOT_ACCESS_KEY_ID: location.accessKeyId, ROOT_SECRET_ACCESS_KEY: location.secretAccessKey },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const keep = (chunk: Buffer) => {
    appendFileSync(logFile, chunk);
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    lines.splice(0, Math.max(0, lines.length - LOG_LINES));
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited: string | undefined;
  child.once('exit', (code, signal) => (exited = `exited with ${signal ?? code}`));

  const stop = async (): Promise<void> => {
    if (!exited) {
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([gone, new Promise((resolve) => (timer = setTimeout(resolve, 5_000)))]);
      clearTimeout(timer);
      if (!exited) child.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    if (exited) {
      await stop();
      throw new Error(`versitygw ${exited} before it answered (log: ${logFile}):\n${lines.join('\n')}`);
    }
    const status = await fetch(`${location.endpoint}/health`)
      .then((answer) => answer.status)
      .catch(() => 0);
    if (status === 200) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`versitygw on ${location.endpoint} did not answer GET /health (last status ${status}; log: ${logFile}):\n${lines.join('\n')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const createBucket = async (name: string, { objectLock }: { objectLock: boolean }): Promise<S3Location> => {
    const bucketLocation = { ...location, bucket: name };
    await new BucketCreator(bucketLocation).createBucket(objectLock);
    return bucketLocation;
  };
  try {
    await createBucket(bucket, { objectLock: true });
  } catch (error) {
    await stop();
    throw error;
  }
  return { location, logFile, createBucket, stop };
}
