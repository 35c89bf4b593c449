// Which slow-built tools each integration suite needs, for test/run-all.sh: on a fresh machine the
// tools are built in the background (test/setup.sh --builds, one step after another), and a lane
// runs a suite only once every build step it needs is done — never inside a test's hook, whose
// timeout a 10-minute build would exceed.
//
// A suite needs a step when a file it imports (transitively, within test/) names that step's build
// script: test/helpers/real-velero.ts names build-velero.sh, so every suite that imports it waits
// for Velero, even one that only uses the simulator. Conservative by design: waiting too long
// costs minutes, starting too early fails the suite.
//
//   node test/integration/suite-needs.mjs FILE...   prints "STEP<TAB>FILE" per suite, STEP being
//                                                   the last build step it needs (in BUILD_STEPS order)
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The build steps of test/setup.sh --builds, in the order it runs them (its `timed` names). */
export const BUILD_STEPS = ['control-plane', 'velero', 'node', 'node-images', 'helm+promtool', 'object-lock-s3', 'csi', 'api-clients', 'schemathesis'];

/** What in a file's text says it needs a step (a build script, or the real node's helpers). */
const STEP_MARKERS = [
  ['velero', /build-velero\.sh/],
  ['node', /helpers\/real-node(\.js|')/],
  ['csi', /build-csi\.sh/],
  ['helm+promtool', /build-go-tools\.sh/],
  ['object-lock-s3', /build-versitygw\.sh/],
  ['api-clients', /clients\.sh/],
  ['schemathesis', /schemathesis\.sh/],
];

const IMPORT = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

function resolveImport(from, specifier) {
  const target = path.resolve(path.dirname(from), specifier);
  for (const candidate of [target.replace(/\.js$/, '.ts'), target, `${target}.ts`]) {
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** The files under test/ that `file` imports, itself included. */
function closure(file, testRoot) {
  const seen = new Set();
  const pending = [file];
  while (pending.length > 0) {
    const current = pending.pop();
    if (seen.has(current)) continue;
    seen.add(current);
    for (const match of readFileSync(current, 'utf8').matchAll(IMPORT)) {
      const imported = resolveImport(current, match[1]);
      if (imported && imported.startsWith(testRoot) && /\.(ts|js|mjs)$/.test(imported)) pending.push(imported);
    }
  }
  return seen;
}

/** The build steps a suite needs (always the control plane). */
export function stepsOf(file) {
  const absolute = path.resolve(file);
  const testRoot = path.resolve(here, '..') + path.sep;
  const needs = new Set(['control-plane']);
  for (const part of closure(absolute, testRoot)) {
    const text = readFileSync(part, 'utf8');
    for (const [step, marker] of STEP_MARKERS) if (marker.test(text)) needs.add(step);
  }
  // The real node's cluster starts from the node binaries and images. (build-images.sh is not a
  // marker: the only image a suite builds itself is Velero's, from the velero step's binaries, in
  // seconds; every other image is the node's.)
  if (needs.has('node')) needs.add('node-images');
  return needs;
}

/** The last build step (in BUILD_STEPS order) a suite needs: when it may start. */
export function lastStepOf(file) {
  const needs = stepsOf(file);
  return BUILD_STEPS.filter((step) => needs.has(step)).at(-1);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const file of process.argv.slice(2)) console.log(`${lastStepOf(file)}\t${file}`);
}
