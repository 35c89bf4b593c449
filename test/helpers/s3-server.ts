// A real S3-compatible server for tests: s3s-fs (built and cached by test/cluster/build-velero.sh)
// on a free 127.0.0.1 port, keeping its objects in a directory (a bucket is a directory under it).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { freeLoopbackPort, veleroBinaries } from './real-velero.js';
import { waitFor } from './kube.js';

export interface S3Server {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Where the bucket's objects are files (to tamper with them as an attacker with store access would). */
  bucketDir: string;
  stop(): Promise<void>;
}

export async function startS3Server(workDir: string, bucket = 'evidence'): Promise<S3Server> {
  rmSync(workDir, { recursive: true, force: true });
  const dataDir = path.join(workDir, 's3');
  const bucketDir = path.join(dataDir, bucket);
  mkdirSync(bucketDir, { recursive: true });
  const port = await freeLoopbackPort();
  const accessKeyId = 'archive-test';
  const secretAccessKey = 'archive-test-secret-key';
  const child: ChildProcess = spawn(
    veleroBinaries().s3Server,
    ['--host', '127.0.0.1', '--port', String(port), '--access-key', accessKeyId, '--secret-key', secretAccessKey, dataDir],
    { env: { PATH: process.env.PATH, RUST_LOG: 'warn' }, stdio: 'ignore' },
  );
  const endpoint = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${endpoint}/`).catch(() => undefined)) !== undefined, {
    timeoutMs: 20_000,
    description: `s3s-fs on ${endpoint}`,
  });
  return {
    endpoint,
    bucket,
    accessKeyId,
    secretAccessKey,
    bucketDir,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
