// The chart as a registry serves it (issue 30), without a cluster of its own: deploy/helm/package.sh
// packs the working tree's chart and the previous release (deploy/helm/releases.env, rebuilt from
// its commit) and pushes both to a real OCI registry on 127.0.0.1 (CNCF Distribution, built from
// its Go module). It shows that the archives hold real files where the chart directory has links
// (crds/ → crds/, files/ → deploy/), byte for byte; that the previous release is its commit's
// chart; that Helm reads the chart and its Artifact Hub metadata back from oci://, and renders from
// the registry exactly what it renders from the directory. The install and the upgrade from the
// registry run on the real node: test/integration/in-cluster.test.ts.
// Lane: node (creates no pods: test/run-all.sh runs it beside the real node's suites)
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { currentChart, previousRelease, publishChart } from '../helpers/chart-releases.js';
import { repoRoot } from '../helpers/cluster-info.js';
import { chartArgs, pulledCrdsDir, type RegistryChart } from '../helpers/helm-install.js';
import { chartDir, helm, keyOf, parseObjects, renderChart } from '../helpers/manifests.js';
import { startOciRegistry, type OciRegistry } from '../helpers/oci-registry.js';
import { tarEntries, type TarEntry } from '../helpers/tar-entries.js';

/** Every file under `dir`, following links, as paths relative to it. */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(path.join(dir, prefix)).flatMap((name) => {
    const relative = path.join(prefix, name);
    const real = realpathSync(path.join(dir, relative));
    return lstatSync(real).isDirectory() ? filesUnder(dir, relative) : [relative];
  });
}

/** The links in the chart directory (crds/*.yaml, files/*), relative to it. */
function linksIn(dir: string, prefix = ''): string[] {
  return readdirSync(path.join(dir, prefix)).flatMap((name) => {
    const relative = path.join(prefix, name);
    const stat = lstatSync(path.join(dir, relative));
    if (stat.isSymbolicLink()) return [relative];
    return stat.isDirectory() ? linksIn(dir, relative) : [];
  });
}

describe('The chart packaged and pushed to an OCI registry on 127.0.0.1', () => {
  let registry: OciRegistry | undefined;
  let work = '';
  let current: RegistryChart & { archive: string };
  let previous: RegistryChart & { archive: string };
  const release = previousRelease();
  const entriesOf = (archive: string): Map<string, TarEntry> =>
    new Map(tarEntries(readFileSync(archive)).map((entry) => [entry.path, entry]));

  beforeAll(async () => {
    work = mkdtempSync(path.join(os.tmpdir(), 'rehearsal-charts-'));
    registry = await startOciRegistry();
    const repository = registry.reference('charts');
    previous = publishChart(work, repository, { from: release.commit, version: release.version });
    current = publishChart(work, repository);
  }, 300_000);

  afterAll(async () => {
    await registry?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('holds real files where the chart directory has links, byte for byte the files they point at', () => {
    const entries = entriesOf(current.archive);
    expect([...entries.values()].filter((entry) => entry.type !== 'file').map((entry) => `${entry.type} ${entry.path}`)).toEqual([]);
    const links = linksIn(chartDir).sort();
    // crds/ (3 CRDs) and files/ (base, cert-manager, monitoring): not vacuous.
    expect(links.filter((link) => link.startsWith('crds/'))).toHaveLength(3);
    expect(links.filter((link) => link.startsWith('files/'))).toEqual(['files/base', 'files/cert-manager', 'files/monitoring']);
    expect([...entries.keys()].sort()).toEqual(filesUnder(chartDir).map((file) => `rehearsal/${file}`).sort());
    for (const link of links) {
      const target = realpathSync(path.join(chartDir, link));
      const files = lstatSync(target).isDirectory() ? filesUnder(target).map((file) => [path.join(link, file), path.join(target, file)]) : [[link, target]];
      expect(files.length).toBeGreaterThan(0);
      for (const [inChart, onDisk] of files) {
        const entry = entries.get(`rehearsal/${inChart}`);
        expect({ file: inChart, found: entry !== undefined }).toEqual({ file: inChart, found: true });
        expect(entry!.data.equals(readFileSync(onDisk!))).toBe(true);
      }
    }
  });

  it("the previous release is its commit's chart, stamped with its version, with that commit's CRDs", () => {
    const entries = entriesOf(previous.archive);
    expect([...entries.values()].every((entry) => entry.type === 'file')).toBe(true);
    const chart = parseYaml(entries.get('rehearsal/Chart.yaml')!.data.toString('utf8')) as { version: string };
    expect(chart.version).toBe(release.version);
    const crds = [...entries.keys()].filter((name) => name.startsWith('rehearsal/crds/'));
    expect(crds).toHaveLength(3);
    // In a clone without the history (CI may clone shallow) the published archive was pushed
    // (deploy/helm/releases/): its CRDs are then compared with nothing older than themselves.
    const withHistory = (() => {
      try {
        execFileSync('git', ['-C', repoRoot, 'cat-file', '-e', `${release.commit}^{commit}`], { stdio: 'ignore' });
        return true;
      } catch {
        return false;
      }
    })();
    if (!withHistory) console.log(`[chart-registry] commit ${release.commit} is not in this clone: the published 0.1.0 archive was pushed`);
    for (const name of withHistory ? crds : []) {
      const atCommit = execFileSync('git', ['-C', repoRoot, 'show', `${release.commit}:crds/${path.basename(name)}`]);
      expect(entries.get(name)!.data.equals(atCommit)).toBe(true);
    }
    // Not the working tree's: the CRDs changed since (if they ever stop differing, the upgrade test
    // no longer crosses a CRD change, and this says so).
    const restoreTests = entries.get('rehearsal/crds/rehearsal.dev_restoretests.yaml')!.data;
    expect(restoreTests.equals(readFileSync(path.join(repoRoot, 'crds/rehearsal.dev_restoretests.yaml')))).toBe(false);
  });

  it("the registry holds both versions as Helm charts (the manifest's config is Helm's)", async () => {
    const base = `http://${registry!.host}/v2/charts/rehearsal`;
    const tags = (await (await fetch(`${base}/tags/list`)).json()) as { name: string; tags: string[] };
    expect({ name: tags.name, tags: [...tags.tags].sort() }).toEqual({ name: 'charts/rehearsal', tags: [release.version, currentChart().version].sort() });
    const manifest = (await (
      await fetch(`${base}/manifests/${current.version}`, { headers: { accept: 'application/vnd.oci.image.manifest.v1+json' } })
    ).json()) as { config: { mediaType: string }; layers: { mediaType: string }[] };
    expect(manifest.config.mediaType).toBe('application/vnd.cncf.helm.config.v1+json');
    expect(manifest.layers.map((layer) => layer.mediaType)).toEqual(['application/vnd.cncf.helm.chart.content.v1.tar+gzip']);
  });

  it('helm show chart from oci:// gives Chart.yaml with its Artifact Hub annotations', () => {
    const shown = parseYaml(helm(['show', 'chart', ...chartArgs(current)])) as Record<string, unknown>;
    const local = parseYaml(readFileSync(path.join(chartDir, 'Chart.yaml'), 'utf8')) as Record<string, unknown>;
    expect(shown).toEqual(local);
    expect(Object.keys(shown.annotations as object)).toContain('artifacthub.io/crds');
  });

  it('helm pull --untar from oci:// gives the three CRDs to apply before an upgrade, each file one CRD', () => {
    const crdsDir = pulledCrdsDir(current, path.join(work, 'pulled'));
    const crds = readdirSync(crdsDir).map((file) => parseObjects(readFileSync(path.join(crdsDir, file), 'utf8')));
    expect(crds.map((objects) => objects.map((crd) => `${crd.kind}/${crd.metadata.name}`)).sort()).toEqual([
      ['CustomResourceDefinition/healthcheckpolicies.rehearsal.dev'],
      ['CustomResourceDefinition/restorereports.rehearsal.dev'],
      ['CustomResourceDefinition/restoretests.rehearsal.dev'],
    ]);
    // Why not `helm show crds | kubectl apply -f -` (docs/install.md): Helm joins the files without
    // a document separator, and what comes out is one document (the last CRD's keys win).
    expect(parseObjects(helm(['show', 'crds', ...chartArgs(current)]))).toHaveLength(1);
  });

  it('helm template from oci:// renders exactly what it renders from the chart directory', () => {
    const fromRegistry = parseObjects(
      helm(['template', 'rehearsal', ...chartArgs(current), '--namespace', 'rehearsal-system', '--include-crds']),
    );
    const fromDirectory = renderChart();
    expect(fromRegistry.length).toBeGreaterThan(20);
    expect(new Map(fromRegistry.map((object) => [keyOf(object), object]))).toEqual(new Map(fromDirectory.map((object) => [keyOf(object), object])));
  });
});
