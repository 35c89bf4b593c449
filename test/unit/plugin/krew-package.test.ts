// The krew packaging of the plugin (issue 30): the platforms and their Node binaries, the manifest
// package.sh writes with each archive's checksum, the bundled packages it credits, and the sh
// launcher at the top of every archive, which must run the archive's own Node and nothing on PATH.
// The archive itself is built and installed with krew in test/integration/krew-install.test.ts.
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { build } from 'esbuild';
import { parse as parseYaml } from 'yaml';
import { REQUIRE_BANNER, namedDynamicImports, namedExportsModule } from '../../../cmd/kubectl-restoretest/krew/bundle.js';
import {
  PLATFORMS,
  archiveName,
  bundledPackages,
  fillManifest,
  parseArchiveArgument,
  platformKey,
} from '../../../cmd/kubectl-restoretest/krew/manifest.js';
import { PLUGIN_VERSION } from '../../../cmd/kubectl-restoretest/version.js';

const krewDir = fileURLToPath(new URL('../../../cmd/kubectl-restoretest/krew/', import.meta.url));
const template = readFileSync(path.join(krewDir, 'restoretest.yaml'), 'utf8');
const packageJson = JSON.parse(readFileSync(fileURLToPath(new URL('../../../package.json', import.meta.url)), 'utf8')) as {
  engines: { node: string };
  dependencies: Record<string, string>;
};

interface Manifest {
  spec: {
    version: string;
    shortDescription: string;
    platforms: { selector: { matchLabels: { os: string; arch: string } }; uri: string; sha256: string; bin: string; files: { from: string; to: string }[] }[];
  };
}

const sha = (digit: string): string => digit.repeat(64);
const BASE = 'https://example.test/releases/v9.8.7';

describe('the platforms the plugin ships for', () => {
  it('are linux and darwin on amd64 and arm64, each with a Node 24 from the npm registry (darwin/arm64: Node 26 LTS)', () => {
    expect(PLATFORMS.map(platformKey)).toEqual(['linux/amd64', 'linux/arm64', 'darwin/amd64', 'darwin/arm64']);
    const major = /^>=(\d+) <(\d+)$/.exec(packageJson.engines.node)!;
    for (const platform of PLATFORMS) {
      // The registry's only Node 24 for darwin/arm64 is 24.0.0: that archive carries the next LTS.
      const ceiling = platformKey(platform) === 'darwin/arm64' ? Number(major[2]) + 2 : Number(major[2]);
      expect(Number(platform.nodeVersion.split('.')[0])).toBeGreaterThanOrEqual(Number(major[1]));
      expect(Number(platform.nodeVersion.split('.')[0])).toBeLessThan(ceiling);
      expect(platform.nodePackage).toMatch(/^node-(bin-)?(linux|darwin)-(x64|arm64)$/);
    }
  });

  it('linux/amd64 carries the Node every test runs on (the "node" dependency)', () => {
    expect(PLATFORMS.find((platform) => platformKey(platform) === 'linux/amd64')!.nodeVersion).toBe(packageJson.dependencies.node);
  });

  it('are the platforms of the manifest template, with the archive\'s launcher as the binary', () => {
    const manifest = parseYaml(template) as Manifest;
    expect(manifest.spec.platforms.map((entry) => platformKey(entry.selector.matchLabels))).toEqual(PLATFORMS.map(platformKey));
    for (const entry of manifest.spec.platforms) {
      expect(entry.bin).toBe('kubectl-restoretest');
      expect(entry.files).toEqual([{ from: 'kubectl-restoretest/*', to: '.' }]);
      expect(entry.uri.endsWith(`/${archiveName(PLUGIN_VERSION, entry.selector.matchLabels)}`)).toBe(true);
    }
  });
});

describe('fillManifest: the manifest of the archives just built', () => {
  it('sets the version, and each platform\'s uri and sha256, keeping the rest of the template', () => {
    const archives = PLATFORMS.map((platform, index) => ({ os: platform.os, arch: platform.arch, sha256: sha(String(index + 1)) }));
    const text = fillManifest(template, '9.8.7', `${BASE}/`, archives);
    const filled = parseYaml(text) as Manifest;
    const original = parseYaml(template) as Manifest;
    expect(filled.spec.version).toBe('v9.8.7');
    expect(filled.spec.platforms.map((entry) => [platformKey(entry.selector.matchLabels), entry.uri, entry.sha256])).toEqual([
      ['linux/amd64', `${BASE}/kubectl-restoretest-v9.8.7-linux-amd64.tar.gz`, sha('1')],
      ['linux/arm64', `${BASE}/kubectl-restoretest-v9.8.7-linux-arm64.tar.gz`, sha('2')],
      ['darwin/amd64', `${BASE}/kubectl-restoretest-v9.8.7-darwin-amd64.tar.gz`, sha('3')],
      ['darwin/arm64', `${BASE}/kubectl-restoretest-v9.8.7-darwin-arm64.tar.gz`, sha('4')],
    ]);
    expect(filled.spec.shortDescription).toBe(original.spec.shortDescription);
    expect(filled.spec.platforms.map((entry) => entry.bin)).toEqual(original.spec.platforms.map((entry) => entry.bin));
    // Its header says what it is; the template's own (placeholder checksums) is gone.
    expect(text).toMatch(/^# krew plugin manifest .*\n# kubectl restoretest v9\.8\.7, written by cmd\/kubectl-restoretest\/krew\/package\.sh/);
    expect(text).not.toContain('placeholders');
    expect(text).not.toContain(sha('0'));
  });

  it('lists only the platforms built, never one with a checksum no archive has', () => {
    const filled = parseYaml(fillManifest(template, PLUGIN_VERSION, BASE, [{ os: 'linux', arch: 'amd64', sha256: sha('a') }])) as Manifest;
    expect(filled.spec.platforms.map((entry) => [platformKey(entry.selector.matchLabels), entry.sha256])).toEqual([['linux/amd64', sha('a')]]);
  });

  it('refuses a malformed checksum, a platform the template lacks, a platform twice, no archive, a bad version', () => {
    const linux = { os: 'linux', arch: 'amd64', sha256: sha('b') };
    expect(() => fillManifest(template, '1.0.0', BASE, [{ ...linux, sha256: 'B'.repeat(64) }])).toThrow('sha256 of linux/amd64');
    expect(() => fillManifest(template, '1.0.0', BASE, [{ ...linux, sha256: sha('b').slice(1) }])).toThrow('sha256 of linux/amd64');
    expect(() => fillManifest(template, '1.0.0', BASE, [linux, { os: 'windows', arch: 'amd64', sha256: sha('c') }])).toThrow('windows/amd64 not in the template');
    expect(() => fillManifest(template, '1.0.0', BASE, [linux, linux])).toThrow('linux/amd64: given twice');
    expect(() => fillManifest(template, '1.0.0', BASE, [])).toThrow('archives: none given');
    expect(() => fillManifest(template, 'v1.0', BASE, [linux])).toThrow('version: "v1.0"');
  });

  it('reads package.sh\'s os/arch=SHA256 arguments', () => {
    expect(parseArchiveArgument(`darwin/arm64=${sha('d')}`)).toEqual({ os: 'darwin', arch: 'arm64', sha256: sha('d') });
    expect(() => parseArchiveArgument('darwin-arm64')).toThrow('expected os/arch=SHA256');
  });
});

describe('bundledPackages: the npm packages in the bundle, from esbuild\'s metafile', () => {
  it('names each package once, scoped and nested ones included, and skips the repository\'s own files', () => {
    expect(
      bundledPackages([
        'cmd/kubectl-restoretest/main.ts',
        'protocol/evidence/canonical-json.ts',
        '../main/node_modules/yargs/build/lib/yargs-factory.js',
        '../main/node_modules/yargs/index.mjs',
        '../main/node_modules/@kubernetes/client-node/dist/config.js',
        '../main/node_modules/@kubernetes/client-node/node_modules/ws/index.js',
        'node_modules/ws/lib/websocket.js',
      ]),
    ).toEqual([
      { name: '@kubernetes/client-node', dir: '../main/node_modules/@kubernetes/client-node' },
      { name: 'ws', dir: '../main/node_modules/@kubernetes/client-node/node_modules/ws' },
      { name: 'ws', dir: 'node_modules/ws' },
      { name: 'yargs', dir: '../main/node_modules/yargs' },
    ]);
  });
});

function run(file: string, args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { env, timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('krew/kubectl-restoretest, the archive\'s launcher', () => {
  /** An installed archive as krew lays it out, with a stand-in for the Node binary. */
  function installed(): { store: string; bin: string; path: string } {
    const root = mkdtempSync(path.join(tmpdir(), 'rh-krew-launcher-'));
    const store = path.join(root, 'store/restoretest/v0.1.0');
    mkdirSync(path.join(store, 'node/bin'), { recursive: true });
    mkdirSync(path.join(store, 'lib'));
    writeFileSync(path.join(store, 'lib/main.mjs'), '');
    writeFileSync(path.join(store, 'kubectl-restoretest'), readFileSync(path.join(krewDir, 'kubectl-restoretest')));
    writeFileSync(path.join(store, 'node/bin/node'), '#!/bin/sh\necho "archive node: $*"\n');
    chmodSync(path.join(store, 'kubectl-restoretest'), 0o755);
    chmodSync(path.join(store, 'node/bin/node'), 0o755);
    // krew's bin/ holds a symlink to the store; PATH holds only readlink, the launcher's one tool.
    const bin = path.join(root, 'bin');
    mkdirSync(bin);
    symlinkSync(path.join(store, 'kubectl-restoretest'), path.join(bin, 'kubectl-restoretest'));
    const tools = path.join(root, 'tools');
    mkdirSync(tools);
    const readlink = ['/usr/bin/readlink', '/bin/readlink'].find((candidate) => existsSync(candidate))!;
    symlinkSync(readlink, path.join(tools, 'readlink'));
    return { store, bin, path: `${bin}:${tools}` };
  }

  it('runs the archive\'s Node on the bundle through krew\'s symlink, with no node on PATH', async () => {
    const { store, bin, path: PATH } = installed();
    const result = await run(path.join(bin, 'kubectl-restoretest'), ['list', '-A', 'a b'], { PATH });
    expect(result).toEqual({ code: 0, stdout: `archive node: ${store}/lib/main.mjs list -A a b\n`, stderr: '' });
  });

  it('follows a relative symlink too (a user linking it by hand)', async () => {
    const { store, path: PATH } = installed();
    const own = path.join(path.dirname(path.dirname(path.dirname(store))), 'own');
    mkdirSync(own);
    symlinkSync('../store/restoretest/v0.1.0/kubectl-restoretest', path.join(own, 'kubectl-restoretest'));
    const result = await run(path.join(own, 'kubectl-restoretest'), ['--help'], { PATH });
    expect(result.stdout).toBe(`archive node: ${own}/../store/restoretest/v0.1.0/lib/main.mjs --help\n`);
  });
});

describe('bundle.ts: import() of a CommonJS package in a split bundle', () => {
  it('namedExportsModule re-exports each name statically, default included, odd names left out', () => {
    const text = namedExportsModule('yaml', ['parse', 'default', 'module.exports', 'stringify']);
    expect(text).toBe([
      'import * as namespace from "yaml";',
      'const export0 = namespace["parse"];',
      'export { export0 as parse };',
      'const export3 = namespace["stringify"];',
      'export { export3 as stringify };',
      'export default namespace.default;',
      '',
    ].join('\n'));
  });

  /** `const { greet } = await import('cjs-fixture')`, bundled with splitting, run by Node. */
  async function runSplit(plugins: ReturnType<typeof namedDynamicImports>[]): Promise<string> {
    const dir = mkdtempSync(path.join(tmpdir(), 'rh-krew-bundle-'));
    mkdirSync(path.join(dir, 'node_modules/cjs-fixture'), { recursive: true });
    writeFileSync(path.join(dir, 'node_modules/cjs-fixture/package.json'), '{"name":"cjs-fixture","version":"1.0.0","main":"index.js"}');
    writeFileSync(path.join(dir, 'node_modules/cjs-fixture/index.js'), 'exports.greet = () => "hello from " + require("node:path").basename("/a/cjs");\n');
    writeFileSync(path.join(dir, 'entry.mjs'), 'const { greet } = await import("cjs-fixture");\nconsole.log(typeof greet === "function" ? greet() : "greet is " + typeof greet);\n');
    await build({
      entryPoints: [path.join(dir, 'entry.mjs')], bundle: true, platform: 'node', format: 'esm', splitting: true,
      outdir: path.join(dir, 'out'), outExtension: { '.js': '.mjs' }, banner: { js: REQUIRE_BANNER }, logLevel: 'silent', plugins,
    });
    return execFileSync(process.execPath, [path.join(dir, 'out/entry.mjs')], { encoding: 'utf8' }).trim();
  }

  it('without the plugin the named export is lost (evanw/esbuild#3245); with it, it is there', async () => {
    expect(await runSplit([])).toBe('greet is undefined');
    expect(await runSplit([namedDynamicImports()])).toBe('hello from cjs');
  });
});
