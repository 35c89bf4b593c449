// The executable kubectl finds on PATH (bin/kubectl-restoretest, a POSIX sh launcher), kubectl's
// plugin discovery and completion hook, and the krew manifest.
import { execFile } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { parse as parseYaml } from 'yaml';
import { PLUGIN_VERSION } from '../../../cmd/kubectl-restoretest/version.js';
import { describeWithTool } from '../../helpers/required-tool.js';

const pluginDir = fileURLToPath(new URL('../../../cmd/kubectl-restoretest/', import.meta.url));
const binDir = path.join(pluginDir, 'bin');
const launcher = path.join(binDir, 'kubectl-restoretest');

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[], env: Record<string, string | undefined> = process.env): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(file, args, { env: { ...env, NO_COLOR: '1' }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** A directory on PATH holding only the named tools (so the launcher finds no real `node`). */
function toolsOnly(tools: string[], extra: Record<string, string> = {}): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'rh-plugin-path-'));
  for (const tool of tools) {
    const real = ['/usr/bin', '/bin'].map((prefix) => path.join(prefix, tool)).find((candidate) => existsSync(candidate));
    if (real) symlinkSync(real, path.join(dir, tool));
  }
  for (const [name, script] of Object.entries(extra)) {
    writeFileSync(path.join(dir, name), script);
    chmodSync(path.join(dir, name), 0o755);
  }
  return dir;
}

/** A copy of the launcher in a package tree without node_modules: it must fall back to PATH. */
function bareLauncher(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'rh-plugin-bare-'));
  mkdirSync(path.join(root, 'cmd/kubectl-restoretest/bin'), { recursive: true });
  const copy = path.join(root, 'cmd/kubectl-restoretest/bin/kubectl-restoretest');
  copyFileSync(launcher, copy);
  chmodSync(copy, 0o755);
  return copy;
}

const COREUTILS = ['dirname', 'readlink', 'find', 'head', 'sh'];

describe('bin/kubectl-restoretest', () => {
  it('runs the plugin with the package\'s own Node 24', async () => {
    const result = await run(launcher, ['version', '--client']);
    expect(result).toEqual({ code: 0, stdout: `Client Version: v${PLUGIN_VERSION}\n`, stderr: '' });
  });

  it('works through a symlink, as npm and krew install it', async () => {
    const link = path.join(mkdtempSync(path.join(tmpdir(), 'rh-plugin-link-')), 'kubectl-restoretest');
    symlinkSync(launcher, link);
    expect((await run(link, ['version', '--client'])).stdout).toBe(`Client Version: v${PLUGIN_VERSION}\n`);
  });

  it('refuses a Node on PATH older than 24, saying which', async () => {
    const fakeNode = '#!/bin/sh\ncase "$1" in --version) echo v20.20.2 ;; -e) printf 20 ;; esac\n';
    const dir = toolsOnly(COREUTILS, { node: fakeNode });
    const result = await run(bareLauncher(), ['list'], { PATH: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`error: kubectl-restoretest needs Node.js 24 or newer; ${dir}/node is v20.20.2\n`);
  });

  it('says so when there is no Node at all', async () => {
    const result = await run(bareLauncher(), ['list'], { PATH: toolsOnly(COREUTILS) });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: kubectl-restoretest needs Node\.js 24 or newer and found none/);
  });

  it('says how to build when neither the compiled plugin nor tsx is there', async () => {
    const fakeNode = '#!/bin/sh\ncase "$1" in --version) echo v24.21.0 ;; -e) printf 24 ;; esac\n';
    const copy = bareLauncher();
    const result = await run(copy, ['list'], { PATH: toolsOnly(COREUTILS, { node: fakeNode }) });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: kubectl-restoretest is not built: run "npm run build:plugin" in /);
  });
});

const kubectl = ['/usr/bin/kubectl', '/usr/local/bin/kubectl'].find((candidate) => existsSync(candidate));
const KUBECTL = { name: 'kubectl', available: kubectl !== undefined, install: 'bash test/setup.sh installs it' };

describeWithTool(KUBECTL, 'through kubectl (plugin discovery)', () => {
  it('kubectl restoretest --help', async () => {
    const result = await run(kubectl!, ['restoretest', '--help'], { ...process.env, PATH: `${binDir}:${process.env.PATH}` });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('kubectl restoretest <command> [flags]');
    expect(result.stdout).toContain('kubectl restoretest trigger <name>');
  });

  it('kubectl_complete-restoretest answers kubectl\'s completion requests', async () => {
    const result = await run(path.join(binDir, 'kubectl_complete-restoretest'), ['tri']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toContain('trigger');
    expect(lines.at(-1)).toBe(':4');
  });
});

describe('krew manifest', () => {
  it('is a krew Plugin for this version with an archive per platform', () => {
    const manifest = parseYaml(readFileSync(path.join(pluginDir, 'krew/restoretest.yaml'), 'utf8')) as {
      apiVersion: string;
      kind: string;
      metadata: { name: string };
      spec: { version: string; shortDescription: string; platforms: { selector: { matchLabels: Record<string, string> }; uri: string; sha256: string; bin: string }[] };
    };
    expect(manifest.apiVersion).toBe('krew.googlecontainertools.github.com/v1alpha2');
    expect(manifest.kind).toBe('Plugin');
    expect(manifest.metadata.name).toBe('restoretest');
    expect(manifest.spec.version).toBe(`v${PLUGIN_VERSION}`);
    expect(manifest.spec.shortDescription.length).toBeLessThanOrEqual(60);
    expect(manifest.spec.platforms.map((platform) => `${platform.selector.matchLabels.os}/${platform.selector.matchLabels.arch}`)).toEqual([
      'linux/amd64',
      'linux/arm64',
      'darwin/amd64',
      'darwin/arm64',
    ]);
    for (const platform of manifest.spec.platforms) {
      expect(platform.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(platform.uri).toContain(`/v${PLUGIN_VERSION}/kubectl-restoretest-v${PLUGIN_VERSION}-`);
      // The launcher at the top of the archive (krew/kubectl-restoretest), not the npm one.
      expect(platform.bin).toBe('kubectl-restoretest');
    }
  });
});
