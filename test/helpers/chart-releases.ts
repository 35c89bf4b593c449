// The chart's releases as the tests publish them (issue 30): the working tree's chart at its
// Chart.yaml version, and the previous release rebuilt from its commit (deploy/helm/releases.env),
// each packaged and pushed by deploy/helm/package.sh, as a maintainer publishes them.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { repoRoot } from './cluster-info.js';
import type { RegistryChart } from './helm-install.js';

export interface PreviousRelease {
  version: string;
  commit: string;
}

/** KEY=value lines of a shell env file; comments and blank lines skipped, quotes removed. */
export function parseEnvFile(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^\s*([A-Z_][A-Z0-9_]*)=(?:"([^"]*)"|'([^']*)'|(\S*))\s*(?:#.*)?$/.exec(line);
    if (match) values[match[1]!] = match[2] ?? match[3] ?? match[4] ?? '';
  }
  return values;
}

/** The previous chart release from deploy/helm/releases.env (both keys required). */
export function previousRelease(text = readFileSync(path.join(repoRoot, 'deploy/helm/releases.env'), 'utf8')): PreviousRelease {
  const env = parseEnvFile(text);
  const version = env.PREVIOUS_CHART_VERSION;
  const commit = env.PREVIOUS_CHART_COMMIT;
  if (!version || !commit) throw new Error('deploy/helm/releases.env must set PREVIOUS_CHART_VERSION and PREVIOUS_CHART_COMMIT');
  if (!/^[0-9a-f]{40}$/.test(commit)) throw new Error(`PREVIOUS_CHART_COMMIT is not a full commit hash: ${commit}`);
  return { version, commit };
}

function hasCommit(commit: string): boolean {
  try {
    execFileSync('git', ['-C', repoRoot, 'cat-file', '-e', `${commit}^{commit}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The working tree's chart version and appVersion. */
export function currentChart(): { version: string; appVersion: string } {
  const chart = parseYaml(readFileSync(path.join(repoRoot, 'deploy/helm/rehearsal/Chart.yaml'), 'utf8')) as {
    version: string;
    appVersion: string;
  };
  return { version: chart.version, appVersion: chart.appVersion };
}

/**
 * Packs the chart (of the working tree, or of `from`'s commit stamped `version`) into `outDir` and
 * pushes it to `repository` (oci://host/path) over plain HTTP. Returns what `helm install` needs.
 */
export function publishChart(outDir: string, repository: string, options: { from?: string; version?: string } = {}): RegistryChart & { archive: string } {
  const args = [path.join(repoRoot, 'deploy/helm/package.sh'), '--push', repository, '--plain-http'];
  if (options.from) {
    // A shallow clone lacks older commits: the release as published (deploy/helm/releases/) is
    // pushed instead, as a maintainer would push the archive they released.
    const published = path.join(repoRoot, 'deploy/helm/releases', `rehearsal-${options.version ?? ''}.tgz`);
    if (!hasCommit(options.from)) {
      if (!options.version || !existsSync(published)) {
        throw new Error(`commit ${options.from} (deploy/helm/releases.env) is not in this clone and ${published} does not exist: fetch the full history (git fetch --unshallow)`);
      }
      const helm = execFileSync('bash', [path.join(repoRoot, 'deploy/tools/build-go-tools.sh'), 'helm'], { encoding: 'utf8' }).trim();
      execFileSync(helm, ['push', published, repository, '--plain-http'], { stdio: ['ignore', 'ignore', 'pipe'] });
      return { archive: published, reference: `${repository}/rehearsal`, version: options.version, plainHttp: true };
    }
    args.push('--from', options.from);
  }
  if (options.version) args.push('--version', options.version);
  args.push(outDir);
  const archive = execFileSync('bash', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  const version = options.version ?? currentChart().version;
  return { archive, reference: `${repository}/rehearsal`, version, plainHttp: true };
}
