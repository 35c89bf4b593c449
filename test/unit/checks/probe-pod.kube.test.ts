// The file check pod's lifecycle in KubeSandboxReader (claimUsers, runProbePod) with the REAL
// @kubernetes/client-node against a loopback, stateful stand-in for the API server: a leftover pod
// of the same name is deleted first, the pod is created, read until it ends or is stuck, its log
// read with limitBytes, and deleted in every case (also on abort). Decision 0020.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { buildFileCheckPod } from '../../../server/checks/file-check-pod.js';
import { PROBE_LOG_LIMIT, SandboxReadError, type ProbePodManifest } from '../../../server/checks/sandbox-reader.js';
import { KubeSandboxReader } from '../../../server/checks/sandbox-reader.kube.js';

const NS = 'rehearsal-shop-abc12';
const POD = 'rehearsal-file-sentinel';

interface StoredPod {
  body: Record<string, unknown>;
  /** The statuses the pod goes through, one per read (the last one stays). */
  statuses: Record<string, unknown>[];
  reads: number;
}

let pods = new Map<string, StoredPod>();
let requests: string[] = [];
/** What the next created pod will go through. */
let script: Record<string, unknown>[] = [];
let log = '';
let refuseCreate: Record<string, unknown> | undefined;
let appPods: Record<string, unknown>[] = [];
/** The bodies of the pods created, as the API server received them. */
let createdBodies: Record<string, unknown>[] = [];
let server: Server;
let reader: KubeSandboxReader;

const status = (code: number, reason: string, message: string) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });

function send(response: ServerResponse, code: number, body: unknown, type = 'application/json'): void {
  response.writeHead(code, { 'content-type': type }).end(typeof body === 'string' ? body : JSON.stringify(body));
}

function podView(name: string, stored: StoredPod): Record<string, unknown> {
  const index = Math.min(stored.reads, stored.statuses.length - 1);
  stored.reads += 1;
  return { ...stored.body, metadata: { ...(stored.body.metadata as object), name, namespace: NS }, status: stored.statuses[index] ?? { phase: 'Pending' } };
}

function answer(request: IncomingMessage, response: ServerResponse): void {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    requests.push(`${request.method} ${url.pathname}${url.search}`);
    const parts = url.pathname.split('/'); // ['', 'api', 'v1', 'namespaces', NS, 'pods', name?, 'log'?]
    const name = parts[6];
    if (request.method === 'GET' && !name) return send(response, 200, { kind: 'PodList', metadata: {}, items: appPods });
    if (request.method === 'POST') {
      if (refuseCreate) return send(response, 403, refuseCreate);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      createdBodies.push(body);
      const created = (body.metadata as { name: string }).name;
      pods.set(created, { body, statuses: script, reads: 0 });
      return send(response, 201, { ...body, status: { phase: 'Pending' } });
    }
    const stored = name ? pods.get(name) : undefined;
    if (!name || !stored) return send(response, 404, status(404, 'NotFound', `pods "${name}" not found`));
    if (request.method === 'DELETE') {
      pods.delete(name);
      return send(response, 200, { ...stored.body, status: { phase: 'Running' } });
    }
    if (parts[7] === 'log') {
      const limit = Number(url.searchParams.get('limitBytes') ?? Infinity);
      return send(response, 200, Buffer.from(log).subarray(0, limit).toString('utf8'), 'text/plain');
    }
    return send(response, 200, podView(name, stored));
  });
}

const manifest = (): ProbePodManifest =>
  buildFileCheckPod({ namespace: NS, checkName: 'sentinel', check: { claim: 'data-pg-0', path: '/pgdata/s' }, image: 'busybox', deadlineSeconds: 10 });

const terminated = (exitCode: number, reason = 'Completed') => ({
  phase: exitCode === 0 ? 'Succeeded' : 'Failed',
  containerStatuses: [{ name: 'file-check', state: { terminated: { exitCode, reason } } }],
});

beforeAll(async () => {
  server = createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'stand-in', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true }],
    users: [{ name: 'rehearsal', token: 'test-token' }],
    contexts: [{ name: 'stand-in', cluster: 'stand-in', user: 'rehearsal' }],
    currentContext: 'stand-in',
  });
  reader = new KubeSandboxReader(kubeConfig);
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  pods = new Map();
  requests = [];
  script = [];
  log = '';
  refuseCreate = undefined;
  appPods = [];
  createdBodies = [];
});

describe('KubeSandboxReader: the file check pod (real client-node against a stateful stand-in)', () => {
  it('deletes a leftover of the same name first, creates the pod, waits for its end, reads its log bounded, deletes it', async () => {
    pods.set(POD, { body: { metadata: { name: POD } }, statuses: [{ phase: 'Running' }], reads: 0 });
    script = [{ phase: 'Pending' }, { phase: 'Running' }, terminated(0)];
    log = 'rehearsal-file-check 1\nexists no\nend\n';
    const outcome = await reader.runProbePod(manifest(), new AbortController().signal);
    expect(outcome).toEqual({ phase: 'Succeeded', exitCode: 0, reason: 'Completed', log });
    const base = `/api/v1/namespaces/${NS}/pods`;
    expect(requests.filter((line) => !line.startsWith(`GET ${base}/${POD}?`) && line !== `GET ${base}/${POD}`)).toEqual([
      `DELETE ${base}/${POD}?gracePeriodSeconds=0`,
      `POST ${base}`,
      `GET ${base}/${POD}/log?container=file-check&limitBytes=${PROBE_LOG_LIMIT}`,
      `DELETE ${base}/${POD}?gracePeriodSeconds=0`,
    ]);
    expect(pods.has(POD)).toBe(false);
  });

  it('sends the manifest whole: the client\'s serializer drops no field of the read-only shape', async () => {
    script = [terminated(0)];
    const pod = buildFileCheckPod({
      namespace: NS,
      checkName: 'sentinel',
      check: { claim: 'data-pg-0', path: '/pgdata/s', sha256: 'a'.repeat(64), contains: 'x' },
      image: 'busybox',
      deadlineSeconds: 10,
      beside: { pod: 'pg-0', phase: 'Running', nodeName: 'node-a', terminating: false, security: { runAsUser: 999, runAsGroup: 999, fsGroup: 2000 } },
    });
    await reader.runProbePod(pod, new AbortController().signal);
    expect(createdBodies).toEqual([JSON.parse(JSON.stringify(pod))]);
  });

  it('keeps at most the log limit of a huge log', async () => {
    script = [terminated(0)];
    log = 'x'.repeat(PROBE_LOG_LIMIT * 10);
    expect((await reader.runProbePod(manifest(), new AbortController().signal)).log).toHaveLength(PROBE_LOG_LIMIT);
  });

  it('a deadline or a non-zero exit is reported with its reason, and the pod is deleted', async () => {
    script = [{ phase: 'Failed', reason: 'DeadlineExceeded', containerStatuses: [{ name: 'file-check', state: { terminated: { exitCode: 137, reason: 'Error' } } }] }];
    expect(await reader.runProbePod(manifest(), new AbortController().signal)).toMatchObject({ phase: 'Failed', exitCode: 137, reason: 'DeadlineExceeded' });
    expect(pods.has(POD)).toBe(false);
  });

  it('a pod that will not start (image, configuration) is Stuck at once, and deleted', async () => {
    script = [{ phase: 'Pending', containerStatuses: [{ name: 'file-check', state: { waiting: { reason: 'CreateContainerConfigError', message: 'container has runAsNonRoot and image will run as root' } } }] }];
    expect(await reader.runProbePod(manifest(), new AbortController().signal)).toEqual({
      phase: 'Stuck',
      reason: 'CreateContainerConfigError: container has runAsNonRoot and image will run as root',
      log: '',
    });
    expect(pods.has(POD)).toBe(false);
  });

  it('aborted while it runs: throws Timeout, and the pod is still deleted', async () => {
    script = [{ phase: 'Running' }];
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 700);
    await expect(reader.runProbePod(manifest(), controller.signal)).rejects.toMatchObject({ reason: 'Timeout' });
    expect(pods.has(POD)).toBe(false);
    expect(requests.at(-1)).toBe(`DELETE /api/v1/namespaces/${NS}/pods/${POD}?gracePeriodSeconds=0`);
  });

  it('a refused create (Pod Security, admission) throws the classified error', async () => {
    refuseCreate = status(403, 'Forbidden', `pods "${POD}" is forbidden: violates PodSecurity "restricted:latest"`);
    const thrown = await reader.runProbePod(manifest(), new AbortController().signal).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(SandboxReadError);
    expect(thrown).toMatchObject({ reason: 'Forbidden', statusCode: 403 });
  });

  it('claimUsers: the pods whose volumes name the claim, with the user of the container that mounts it', async () => {
    appPods = [
      {
        metadata: { name: 'pg-0', namespace: NS },
        spec: {
          nodeName: 'node-a',
          securityContext: { runAsUser: 1000, fsGroup: 2000, supplementalGroups: [7] },
          containers: [
            { name: 'exporter', securityContext: { runAsUser: 65534 } },
            { name: 'postgres', securityContext: { runAsUser: 999, runAsNonRoot: true }, volumeMounts: [{ name: 'data', mountPath: '/var/lib/postgresql/data' }] },
          ],
          volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data-pg-0' } }],
        },
        status: { phase: 'Running' },
      },
      { metadata: { name: 'web', namespace: NS }, spec: { containers: [{ name: 'web' }], volumes: [{ name: 'x', emptyDir: {} }] }, status: { phase: 'Running' } },
      // Another file check's pod on the same claim, running as root: never the pod to run beside.
      { ...(JSON.parse(JSON.stringify(manifest())) as Record<string, unknown>), status: { phase: 'Running' } },
    ];
    expect(await reader.claimUsers(NS, 'data-pg-0')).toEqual([
      {
        pod: 'pg-0',
        phase: 'Running',
        nodeName: 'node-a',
        terminating: false,
        security: { runAsUser: 999, runAsNonRoot: true, fsGroup: 2000, supplementalGroups: [7] },
      },
    ]);
    expect(await reader.claimUsers(NS, 'other')).toEqual([]);
    // Nor is it a pod of the restored application for podsReady, exec and the run's pod counts.
    expect((await reader.listPods(NS)).map((pod) => pod.name)).toEqual(['pg-0', 'web']);
  });
});
