// kubectl restoretest as krew installs it (issue 30). cmd/kubectl-restoretest/krew/package.sh builds
// this machine's archive (the bundled plugin, the platform's Node 24 binary, a sh launcher) and the
// manifest with its sha256; krew, built from its Go module by deploy/tools/build-go-tools.sh, installs
// it from that manifest and the local archive into a KREW_ROOT of its own (no index, no network);
// then kubectl finds the installed plugin on a PATH with krew's bin/ and no `node` at all, and runs
// its verbs against a Rehearsal server (API only) on the test cluster.
//
// Also: the archive holds nothing of the server (no node_modules, none of the server's packages),
// client-node sits in a chunk `list` does not load, and the archive's size and the installed
// plugin's start times are printed and kept in test/.tmp/krew-install.json.
// Lane: node (creates no pods: test/run-all.sh runs it beside the real node's suites)
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { parse as parseYaml } from 'yaml';
import { archiveName, bundledPackages } from '../../cmd/kubectl-restoretest/krew/manifest.js';
import { PLUGIN_VERSION } from '../../cmd/kubectl-restoretest/version.js';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import { repoRoot } from '../helpers/cluster-info.js';
import { createNamespace, deleteNamespaces, testKubeConfig, testKubeconfigPath, uniqueName, waitFor } from '../helpers/kube.js';
import { rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';

/** krew's names for this machine (the archive the test builds and installs). */
const platform = {
  os: process.platform === 'darwin' ? 'darwin' : 'linux',
  arch: process.arch === 'arm64' ? 'arm64' : 'amd64',
};

/** Dependencies of the server the plugin never imports: none may be in the archive. */
const SERVER_ONLY = ['express', 'pdfkit', 'pg', 'pg-cursor', 'mysql2', 'pino', 'prom-client', 'swagger-ui-express', '@tsoa/runtime', 're2js', 'zod'];

const admin = testKubeConfig();
const namespace = uniqueName('krew');
const testName = 'nightly-shop';
let work: string;
let out: string;
let archive: string;
let krewRoot: string;
/** PATH as a krew user has it: krew's bin/, then a directory with kubectl and readlink only. */
let userPath: string;
let rehearsal: Rehearsal | undefined;
let server: string;

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

function run(file: string, args: string[], env: Record<string, string>): Promise<Ran> {
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(file, args, { env, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (error as { code?: unknown }).code : 0;
      resolve({ code: typeof code === 'number' ? code : 1, stdout, stderr, ms: performance.now() - started });
    });
  });
}

/** `kubectl restoretest ARGS` with the krew user's PATH: no repository, no node. */
function plugin(args: string[]): Promise<Ran> {
  return run('kubectl', ['restoretest', ...args], { PATH: userPath, HOME: work, KUBECONFIG: testKubeconfigPath(), NO_COLOR: '1' });
}

/** The first `name` on the test runner's PATH. */
function onPath(name: string): string {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const candidate = path.join(dir, name);
    if (dir && existsSync(candidate)) return candidate;
  }
  throw new Error(`${name} is not on PATH`);
}

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'rehearsal-krew-'));
  out = path.join(work, 'out');
  krewRoot = path.join(work, 'krew-root');
  // Built by test/setup.sh's helm+promtool step; here it is only looked up in the cache.
  const krew = execFileSync('bash', [path.join(repoRoot, 'deploy/tools/build-go-tools.sh'), 'krew'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 900_000,
  }).trim();
  execFileSync('nice', ['-n', '10', 'bash', 'cmd/kubectl-restoretest/krew/package.sh', '--platform', `${platform.os}/${platform.arch}`, out], {
    cwd: repoRoot,
    stdio: ['ignore', 'ignore', 'inherit'],
    timeout: 600_000,
  });
  archive = path.join(out, archiveName(PLUGIN_VERSION, platform));
  // krew itself: the manifest package.sh wrote (its sha256 checked against the archive by krew).
  execFileSync(krew, ['install', `--manifest=${path.join(out, 'restoretest.yaml')}`, `--archive=${archive}`], {
    env: { ...process.env, KREW_ROOT: krewRoot, HOME: work },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 120_000,
  });
  const tools = path.join(work, 'tools');
  mkdirSync(tools);
  for (const tool of ['kubectl', 'readlink']) symlinkSync(onPath(tool), path.join(tools, tool));
  userPath = `${path.join(krewRoot, 'bin')}:${tools}`;

  await createNamespace(admin, namespace);
  await admin.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    group: 'rehearsal.dev',
    version: 'v1alpha1',
    namespace,
    plural: 'restoretests',
    body: {
      apiVersion: 'rehearsal.dev/v1alpha1',
      kind: 'RestoreTest',
      metadata: { name: testName, namespace },
      spec: { provider: 'velero', backupSource: { namespaces: [{ name: 'shop' }] }, schedule: { cron: '0 2 * * *', timezone: 'UTC', suspend: true } },
    },
  });
  // The API alone: list reads the informer cache; no engine is needed to list a test.
  rehearsal = await startInProcess({ kubeconfigPath: await rehearsalKubeconfig('krew-install.kubeconfig'), extra: { REHEARSAL_CONTROLLER: 'false' } });
  server = `http://127.0.0.1:${rehearsal.port()}`;
}, 1_200_000);

afterAll(async () => {
  await rehearsal?.stop();
  await deleteNamespaces(admin, [namespace]);
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('krew installs the plugin from the manifest and the local archive', () => {
  it('records the receipt and links the archive\'s launcher into krew\'s bin/', () => {
    const receipt = parseYaml(readFileSync(path.join(krewRoot, 'receipts/restoretest.yaml'), 'utf8')) as {
      metadata: { name: string };
      spec: { version: string };
    };
    expect(receipt.metadata.name).toBe('restoretest');
    expect(receipt.spec.version).toBe(`v${PLUGIN_VERSION}`);
    const link = path.join(krewRoot, 'bin/kubectl-restoretest');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    const installed = path.dirname(readlinkSync(link));
    expect(installed).toBe(path.join(krewRoot, 'store/restoretest', `v${PLUGIN_VERSION}`));
    for (const file of ['kubectl-restoretest', 'kubectl_complete-restoretest', 'lib/main.mjs', 'node/bin/node']) {
      expect(existsSync(path.join(installed, file))).toBe(true);
    }
  });

  it('the manifest names this archive and its sha256', () => {
    const manifest = parseYaml(readFileSync(path.join(out, 'restoretest.yaml'), 'utf8')) as {
      spec: { platforms: { selector: { matchLabels: { os: string; arch: string } }; uri: string; sha256: string }[] };
    };
    const sha256 = execFileSync('sha256sum', [archive], { encoding: 'utf8' }).split(' ')[0];
    expect(manifest.spec.platforms).toEqual([
      expect.objectContaining({ selector: { matchLabels: platform }, sha256, uri: expect.stringMatching(new RegExp(`/${archiveName(PLUGIN_VERSION, platform).replaceAll('.', '\\.')}$`)) }),
    ]);
  });
});

describe('what the archive holds', () => {
  it('the launcher, the bundle, the Node binary with its license; no node_modules, no server', () => {
    const entries = execFileSync('tar', ['-tzf', archive], { encoding: 'utf8' }).trim().split('\n');
    expect(entries.every((entry) => entry.startsWith('kubectl-restoretest/'))).toBe(true);
    expect(entries).toEqual(expect.arrayContaining([
      'kubectl-restoretest/kubectl-restoretest',
      'kubectl-restoretest/kubectl_complete-restoretest',
      'kubectl-restoretest/lib/main.mjs',
      'kubectl-restoretest/lib/THIRD-PARTY-NOTICES',
      'kubectl-restoretest/node/bin/node',
      'kubectl-restoretest/node/LICENSE',
    ]));
    expect(entries.filter((entry) => /node_modules|package\.json|\.ts$/.test(entry))).toEqual([]);
    expect(entries.filter((entry) => entry.startsWith('kubectl-restoretest/lib/')).every((entry) => /\/lib\/(|[\w-]+\.mjs|THIRD-PARTY-NOTICES)$/.test(entry))).toBe(true);
  });

  it('the bundle: the plugin\'s own code and the packages it imports, none of the server\'s', () => {
    const meta = JSON.parse(readFileSync(path.join(out, 'bundle-meta.json'), 'utf8')) as {
      inputs: Record<string, unknown>;
      outputs: Record<string, { imports: { path: string; kind: string }[]; inputs: Record<string, unknown> }>;
    };
    const inputs = Object.keys(meta.inputs);
    const names = new Set(bundledPackages(inputs).map((entry) => entry.name));
    expect(SERVER_ONLY.filter((name) => names.has(name))).toEqual([]);
    expect([...names]).toEqual(expect.arrayContaining(['yargs', 'undici', 'openapi-fetch', '@kubernetes/client-node']));
    // (named-dynamic-import:PACKAGE: bundle.ts's stand-ins for import('PACKAGE'), generated.)
    const own = inputs.filter((input) => !input.includes('node_modules/') && !input.startsWith('named-dynamic-import:'));
    expect(own.filter((input) => !/^(cmd\/kubectl-restoretest|protocol|openapi)\//.test(input))).toEqual([]);
    // What every run loads: main.mjs, what it imports when it starts (the CLI), and their static
    // imports. client-node (exec credentials and the like; ~0.5 s to load, see connect.ts) and
    // the YAML parser are not in it: they come in chunks of their own when a verb needs them.
    const outputs = meta.outputs;
    const main = Object.keys(outputs).find((file) => file.endsWith('/main.mjs'))!;
    const loaded = new Set<string>();
    const pending = [main, ...outputs[main]!.imports.filter((imported) => imported.kind === 'dynamic-import').map((imported) => imported.path)];
    while (pending.length > 0) {
      const file = pending.pop()!;
      if (loaded.has(file) || !outputs[file]) continue;
      loaded.add(file);
      for (const imported of outputs[file]!.imports) if (imported.kind === 'import-statement') pending.push(imported.path);
    }
    const eager = [...loaded].flatMap((file) => Object.keys(outputs[file]!.inputs));
    expect(eager.some((input) => input.startsWith('cmd/kubectl-restoretest/cli.ts'))).toBe(true);
    expect(eager.filter((input) => /node_modules\/(@kubernetes\/client-node|yaml)\//.test(input))).toEqual([]);
  });
});

describe('the installed plugin, with no node on PATH', () => {
  it('PATH has krew\'s bin/ and kubectl, and no node', async () => {
    const result = await run('/bin/sh', ['-c', 'command -v node || echo none'], { PATH: userPath });
    expect(result.stdout).toBe('none\n');
    const listed = await run('kubectl', ['plugin', 'list', '--name-only'], { PATH: userPath, HOME: work });
    expect(listed.stdout.split('\n')).toContain('kubectl-restoretest');
  });

  it('kubectl restoretest --help', async () => {
    const result = await plugin(['--help']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('kubectl restoretest <command> [flags]');
    expect(result.stdout).toContain('kubectl restoretest trigger <name>');
  });

  it('kubectl restoretest version talks to the server', async () => {
    const result = await plugin(['version', '--server', server]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(new RegExp(`^Client Version: v${PLUGIN_VERSION.replaceAll('.', '\\.')}$`, 'm'));
    expect(result.stdout).toMatch(/^Server Version: v\d/m);
  });

  it('kubectl restoretest list and get against the test cluster', async () => {
    const table = await waitFor(
      async () => {
        const result = await plugin(['list', '-n', namespace, '--server', server]);
        return result.code === 0 && result.stdout.includes(testName) ? result : undefined;
      },
      { timeoutMs: 30_000, description: 'the test in the plugin\'s list' },
    );
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+PROVIDER\s+SCHEDULE\s+PHASE\s+SCORE\s+RESULT\s+LAST RUN\s+NEXT RUN$/);
    expect(lines.slice(1).map((line) => line.split(/\s{3,}/).slice(0, 3))).toEqual([[testName, 'velero', '0 2 * * *']]);
    const json = await plugin(['get', testName, '-n', namespace, '-o', 'json', '--server', server]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ name: testName, namespace, provider: 'velero' });
  });

  it('the verbs whose packages come in chunks of their own: YAML, undici, cron-parser, client-node', async () => {
    const broken = /is not a function|is not a constructor|Cannot find (module|package)|Dynamic require|SyntaxError/;
    // -o yaml: the YAML printer.
    const yaml = await plugin(['get', testName, '-n', namespace, '-o', 'yaml', '--server', server]);
    expect(yaml).toMatchObject({ code: 0, stderr: '' });
    expect(parseYaml(yaml.stdout)).toMatchObject({ name: testName, namespace });
    // The default route: the kubeconfig (YAML) with the admin's client certificate (undici's TLS
    // agent) to kube-apiserver. This suite registers no APIService for Rehearsal, so the answer is
    // the plugin's own explanation of the 404 (or 503 if another suite left one behind; a table if
    // one is being served), never a module error.
    const route = await plugin(['list', '-n', namespace]);
    expect(route.stderr).not.toMatch(broken);
    if (route.code === 0) expect(route.stdout + route.stderr).toMatch(/^NAME\s+PROVIDER|^No resources found/m);
    else expect(route).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: /) });
    // create's --cron check (cron-parser), refused before anything is sent.
    const cron = await plugin(['create', 'x', '-n', namespace, '--provider', 'velero', '--source-namespace', 'shop', '--cron', '99 * * * *', '--server', server]);
    expect(cron.code).toBe(2);
    expect(cron.stderr).toMatch(/^error: invalid --cron "99 \* \* \* \*": /);
    expect(cron.stderr).not.toMatch(broken);
    // An exec credential plugin in the kubeconfig: client-node's KubeConfig runs it (connect.ts);
    // the token goes to the loopback --server, which (auth mode none) ignores it.
    const execKubeconfig = path.join(work, 'exec.kubeconfig');
    const credential = path.join(work, 'credential.sh');
    writeFileSync(credential, `#!/bin/sh\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"from-exec"}}'\n`, { mode: 0o755 });
    writeFileSync(execKubeconfig, JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1' } }],
      users: [{ name: 'u', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: credential, interactiveMode: 'Never' } } }],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'u', namespace } }],
      'current-context': 'c',
    }));
    const exec = await plugin(['list', '--server', server, '--kubeconfig', execKubeconfig]);
    expect(exec.stderr).not.toMatch(broken);
    expect(exec).toMatchObject({ code: 0, stderr: '' });
    expect(exec.stdout).toContain(testName);
  });

  it('a usage error still exits 2 from the bundle', async () => {
    const result = await plugin(['list', '-o', 'xml', '--server', server]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: /);
  });

  it('size and start times (printed, kept in test/.tmp/krew-install.json)', async () => {
    const median = async (args: string[]): Promise<number> => {
      await plugin(args); // the compile cache
      const times: number[] = [];
      for (let round = 0; round < 5; round++) {
        const result = await plugin(args);
        expect(result.code).toBe(0);
        times.push(result.ms);
      }
      return Math.round(times.sort((a, b) => a - b)[2]!);
    };
    const result = {
      archive: path.basename(archive),
      archiveBytes: statSync(archive).size,
      helpMedianMs: await median(['--help']),
      listMedianMs: await median(['list', '-n', namespace, '--server', server]),
      loadAverage1m: Math.round(loadavg()[0]! * 100) / 100,
    };
    console.log(`[krew-install] ${JSON.stringify(result)}`);
    mkdirSync(path.join(repoRoot, 'test/.tmp'), { recursive: true });
    writeFileSync(path.join(repoRoot, 'test/.tmp/krew-install.json'), `${JSON.stringify(result, null, 2)}\n`);
    // The npm-pack archive it replaces was 85 MB (Node, the server's dependencies, the sources).
    expect(result.archiveBytes).toBeLessThan(60 * 1024 * 1024);
  });
});
