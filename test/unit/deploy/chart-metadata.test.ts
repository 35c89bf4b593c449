// The chart's Artifact Hub metadata (Chart.yaml annotations artifacthub.io/*) is hand-written
// YAML inside strings: nothing but these tests notices when it stops parsing or stops describing
// what the chart installs. Each annotation is read back and compared with its source of truth:
// the CRD files, their samples, values.yaml and package.json. Also: values.yaml is valid against
// values.schema.json (Helm refuses an install otherwise), and the chart version is above the
// previous release the upgrade test installs (deploy/helm/releases.env).
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { repoRoot } from '../../helpers/cluster-info.js';
import { parseEnvFile, previousRelease } from '../../helpers/chart-releases.js';

const read = (file: string): string => readFileSync(path.join(repoRoot, file), 'utf8');
const chart = parseYaml(read('deploy/helm/rehearsal/Chart.yaml')) as {
  version: string;
  appVersion: string;
  kubeVersion: string;
  annotations: Record<string, string>;
};
const values = parseYaml(read('deploy/helm/rehearsal/values.yaml')) as {
  image: { repository: string; tag: string };
  fileCheck: { image: string };
};

/** An artifacthub.io/* annotation, parsed (each holds a YAML document in a string). */
function annotation<T>(key: string): T {
  const text = chart.annotations[`artifacthub.io/${key}`];
  if (text === undefined) throw new Error(`Chart.yaml has no annotation artifacthub.io/${key}`);
  return parseYaml(text) as T;
}

interface Crd {
  metadata: { name: string };
  spec: { names: { kind: string }; versions: { name: string; served: boolean; storage: boolean }[] };
}

/** The CRDs the chart installs: its crds/ entries (links into crds/), read from crds/. */
function chartCrds(): Crd[] {
  const names = readdirSync(path.join(repoRoot, 'deploy/helm/rehearsal/crds')).filter((name) => name.endsWith('.yaml'));
  return names.map((name) => parseYaml(read(`deploy/helm/rehearsal/crds/${name}`)) as Crd);
}

/** Major, minor, patch of a release version (no pre-release part in this chart's versions). */
function versionParts(version: string): number[] {
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  if (!match) throw new Error(`not a MAJOR.MINOR.PATCH version: ${version}`);
  return match.slice(1).map(Number);
}

function isAbove(version: string, than: string): boolean {
  const [a, b] = [versionParts(version), versionParts(than)];
  const first = a.findIndex((part, index) => part !== b[index]);
  return first !== -1 && a[first]! > b[first]!;
}

describe('Chart.yaml: Artifact Hub metadata', () => {
  it('every artifacthub.io annotation is a string that parses', () => {
    const keys = Object.keys(chart.annotations).filter((key) => key.startsWith('artifacthub.io/'));
    expect(keys.sort()).toEqual(
      ['changes', 'containsSecurityUpdates', 'crds', 'crdsExamples', 'images', 'license', 'links', 'prerelease'].map((key) => `artifacthub.io/${key}`),
    );
    for (const key of keys) {
      expect(typeof chart.annotations[key]).toBe('string');
      expect(() => parseYaml(chart.annotations[key]!)).not.toThrow();
    }
    expect(['true', 'false']).toContain(chart.annotations['artifacthub.io/prerelease']);
    expect(['true', 'false']).toContain(chart.annotations['artifacthub.io/containsSecurityUpdates']);
  });

  it("the license is the package's", () => {
    const pkg = JSON.parse(read('package.json')) as { license: string };
    expect(chart.annotations['artifacthub.io/license']).toBe(pkg.license);
  });

  it('lists exactly the CRDs the chart installs, by kind, stored version and name', () => {
    const listed = annotation<{ kind: string; version: string; name: string; displayName: string; description: string }[]>('crds');
    const installed = chartCrds().map((crd) => ({
      kind: crd.spec.names.kind,
      version: crd.spec.versions.find((version) => version.storage)!.name,
      name: crd.metadata.name,
    }));
    expect(installed).toHaveLength(3);
    const key = (crd: { kind: string }) => crd.kind;
    expect(listed.map(({ kind, version, name }) => ({ kind, version, name })).sort((a, b) => key(a).localeCompare(key(b)))).toEqual(
      installed.sort((a, b) => key(a).localeCompare(key(b))),
    );
    for (const crd of listed) {
      expect(crd.displayName).toBeTruthy();
      expect(crd.description).toBeTruthy();
    }
  });

  it('the CRD examples are the shipped samples, of kinds the chart installs', () => {
    const examples = annotation<{ apiVersion: string; kind: string }[]>('crdsExamples');
    const samples = ['crds/samples/restoretest-minimal.yaml', 'crds/samples/healthcheckpolicy.yaml'].map((file) => parseYaml(read(file)) as unknown);
    expect(examples).toEqual(samples);
    const kinds = new Set(chartCrds().map((crd) => `${crd.metadata.name.split('.').slice(1).join('.')}/${crd.spec.names.kind}`));
    for (const example of examples) expect(kinds).toContain(`${example.apiVersion.split('/')[0]}/${example.kind}`);
  });

  it("lists every image the chart runs: the server at the chart's appVersion and the file-check image", () => {
    const images = annotation<{ name: string; image: string }[]>('images');
    const server = `${values.image.repository}:${values.image.tag || chart.appVersion}`;
    expect(images.map((image) => image.image)).toEqual([server, values.fileCheck.image]);
    for (const image of images) {
      expect(image.name).toMatch(/^[a-z0-9-]+$/);
      expect(image.image).toMatch(/^[^\s:]+(:[\w][\w.-]*)$/); // pinned by tag, never :latest
      expect(image.image).not.toMatch(/:latest$/);
    }
  });

  it('links are https URLs, and the changes use the kinds Artifact Hub knows', () => {
    const links = annotation<{ name: string; url: string }[]>('links');
    expect(links.length).toBeGreaterThan(0);
    for (const link of links) {
      expect(link.name).toBeTruthy();
      expect(new URL(link.url).protocol).toBe('https:');
    }
    const changes = annotation<{ kind: string; description: string }[]>('changes');
    expect(changes.length).toBeGreaterThan(0);
    for (const change of changes) {
      expect(['added', 'changed', 'deprecated', 'removed', 'fixed', 'security']).toContain(change.kind);
      expect(change.description.length).toBeGreaterThan(10);
    }
  });
});

/**
 * The chart's schema compiled by Ajv, checked against the draft-07 meta-schema on the way. Its
 * `$schema` says https://json-schema.org/draft-07/schema#, which Helm accepts; Ajv knows draft 07
 * by its http:// id only, and draft 07 is its default, so the key is left out here.
 */
function compileValuesSchema() {
  const { $schema, ...schema } = JSON.parse(read('deploy/helm/rehearsal/values.schema.json')) as { $schema: string };
  expect($schema).toMatch(/^https?:\/\/json-schema\.org\/draft-07\/schema#$/);
  return new Ajv({ allErrors: true, strict: false }).compile(schema);
}

describe('values.schema.json', () => {
  it('compiles and accepts the default values.yaml and the CI values file', () => {
    const validate = compileValuesSchema();
    expect({ valid: validate(values), errors: validate.errors ?? null }).toEqual({ valid: true, errors: null });
    // The CI file overrides a subset: merged over the defaults one level deep, as Helm would for these keys.
    const ci = parseYaml(read('deploy/helm/rehearsal/ci/everything-on-values.yaml')) as Record<string, unknown>;
    const merged = mergeDeep(values as unknown as Record<string, unknown>, ci);
    expect({ valid: validate(merged), errors: validate.errors ?? null }).toEqual({ valid: true, errors: null });
  });

  it('refuses a value it does not know, naming it (so the check above can fail)', () => {
    const validate = compileValuesSchema();
    expect(validate({ ...values, imageTypo: 'x' })).toBe(false);
    expect(validate.errors?.map((error) => error.params)).toContainEqual({ additionalProperty: 'imageTypo' });
  });
});

function mergeDeep(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const below = out[key];
    out[key] =
      value && typeof value === 'object' && !Array.isArray(value) && below && typeof below === 'object' && !Array.isArray(below)
        ? mergeDeep(below as Record<string, unknown>, value as Record<string, unknown>)
        : value;
  }
  return out;
}

describe('the chart version and the previous release (deploy/helm/releases.env)', () => {
  it('reads KEY=value lines, quoted or not, with comments', () => {
    expect(parseEnvFile('# c\nA=1\nB="two words" # why\nC=\'3\'\n  D=x\nnot a line\n')).toEqual({ A: '1', B: 'two words', C: '3', D: 'x' });
  });

  it('the previous release is a full commit and a lower version than Chart.yaml', () => {
    const previous = previousRelease();
    expect(previous.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(isAbove(chart.version, previous.version)).toBe(true);
    expect(isAbove(previous.version, chart.version)).toBe(false);
    expect(isAbove(chart.version, chart.version)).toBe(false);
  });

  it('refuses a releases file without a full commit', () => {
    expect(() => previousRelease('PREVIOUS_CHART_VERSION=0.1.0\nPREVIOUS_CHART_COMMIT=4db4eed\n')).toThrow(/not a full commit hash/);
    expect(() => previousRelease('PREVIOUS_CHART_VERSION=0.1.0\n')).toThrow(/must set/);
  });
});
