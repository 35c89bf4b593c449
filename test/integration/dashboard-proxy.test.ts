// `kubectl restoretest dashboard` against the real kube-apiserver: its local proxy lends the
// kubeconfig's credentials to Rehearsal's paths only. A path that starts with the Rehearsal prefix
// and climbs out of it ("%2e%2e" segments, which the URL parser resolves before the request goes
// upstream) must not reach the rest of the Kubernetes API (issue 26); nor may another site's page
// use the proxy. The kubeconfig here is the test cluster's administrator: what leaked was theirs.
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { repoRoot } from '../helpers/cluster-info.js';
import { testKubeconfigPath } from '../helpers/kube.js';

let plugin: ChildProcess | undefined;
let port = 0;

beforeAll(async () => {
  plugin = spawn(
    process.execPath,
    ['--import', 'tsx', 'cmd/kubectl-restoretest/main.ts', 'dashboard', '--kubeconfig', testKubeconfigPath(), '--no-browser'],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    plugin!.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /Dashboard: (\S+)/.exec(out);
      if (found) resolve(found[1]!);
    });
    plugin!.once('exit', (code) => reject(new Error(`the plugin exited with ${code}: ${out}`)));
  });
  port = Number(new URL(url).port);
}, 60_000);

afterAll(async () => {
  if (plugin && plugin.exitCode === null) {
    const exited = new Promise((resolve) => plugin!.once('exit', resolve));
    plugin.kill('SIGINT');
    await exited;
  }
});

/** A request with its path sent as written (fetch would resolve the dot segments itself). */
function raw(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const call = request({ host: '127.0.0.1', port, path, method, headers: { Host: `127.0.0.1:${port}`, ...headers } }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode!, body }));
    });
    call.on('error', reject);
    call.end();
  });
}

describe('the dashboard proxy on the real apiserver', () => {
  it('refuses a %2e%2e path out of the Rehearsal prefix: the cluster API never sees it', async () => {
    for (const path of [
      '/apis/api.rehearsal.dev/v1/%2e%2e/%2e%2e/%2e%2e/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
      '/apis/api.rehearsal.dev/v1/%2e%2e/%2e%2e/%2e%2e/version',
    ]) {
      const answer = await raw(path);
      expect([path, answer.status]).toEqual([path, 400]);
      expect(answer.body).not.toContain('ClusterRoleBindingList');
      expect(answer.body).not.toContain('gitVersion');
    }
  });

  it('refuses what another site\'s page sends with the user\'s credentials', async () => {
    const crossSite = await raw('/apis/api.rehearsal.dev/v1/tests', { Origin: 'https://evil.example' });
    expect(crossSite.status).toBe(403);
    const write = await raw('/apis/api.rehearsal.dev/v1/tests', { 'Content-Type': 'application/json' }, 'POST');
    expect(write.status).toBe(403);
  });
});
