// The ESLint rules that keep the layout honest (configured in eslint.config.js, shown failing by
// test/unit/lint/fences.test.ts):
//   rehearsal/fence     a file of a fenced part imports only what its part's fence allows; a folder
//                       of server/ without a fence is an error of its own. The parts are the
//                       folders of server/ and the top-level folders named in `topLevel` (protocol/,
//                       cmd/), which are fenced the same way: one table says who may import whom;
//   rehearsal/no-cycle  no module takes part in an import cycle, type-only imports included (two
//                       modules that need each other's types cannot be read, moved or tested alone).
// Both work on paths only: the import graph is read once per process with TypeScript's own
// pre-processor (the same list of imports the compiler sees), so no resolver is configured.
import path from 'node:path';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import ts from 'typescript';

/**
 * @param {{ root: string, fences: Record<string, string[]>, topLevel?: string[] }} options
 *   root: the repository; fences: part → the parts it may import ('*' = anything); topLevel: the
 *   keys of `fences` that are folders at the repository's top level (the others are in server/).
 */
export function fencePlugin({ root, fences, topLevel = [] }) {
  const serverDir = path.join(root, 'server');
  const serverKeysLongestFirst = Object.keys(fences)
    .filter((key) => !topLevel.includes(key))
    .sort((a, b) => b.length - a.length);

  /**
   * The fence key of a file: its top-level folder when that is fenced ('protocol' for
   * protocol/x.ts), else its part of server/ ('domain/run' for server/domain/run/x.ts); undefined
   * for files no fence covers (test/, web/).
   */
  function partOf(file) {
    const fromRoot = path.relative(root, file).split(path.sep).join('/');
    const top = topLevel.find((key) => fromRoot.startsWith(`${key}/`));
    if (top) return top;
    const rel = path.relative(serverDir, file).split(path.sep).join('/').replace(/\.js$/, '.ts');
    if (rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
    return serverKeysLongestFirst.find((key) => rel === key || rel.startsWith(`${key}/`)) ?? `unfenced:${rel.split('/')[0]}`;
  }

  /** How messages name a part: 'protocol/' for a top-level one, 'server/domain/run' for the others. */
  function shown(part) {
    return topLevel.includes(part) ? `${part}/` : `server/${part}`;
  }

  function mayImport(from, to) {
    if (from === to) return true;
    const allowed = fences[from] ?? [];
    return allowed.includes('*') || allowed.some((key) => to === key || to.startsWith(`${key}/`));
  }

  const fence = {
    meta: {
      type: 'problem',
      schema: [],
      messages: {
        crossing: '{{from}} may not import {{to}} ({{target}}): its fence allows only {{allowed}} (eslint.config.js, FENCES).',
        unfenced: 'server/{{part}} has no fence: add it to FENCES in eslint.config.js.',
      },
    },
    create(context) {
      const file = context.filename;
      const from = partOf(file);
      if (!from) return {};
      const check = (node, source) => {
        if (typeof source !== 'string' || !source.startsWith('.')) return;
        const target = path.resolve(path.dirname(file), source);
        const to = partOf(target);
        if (to === undefined || mayImport(from, to)) return;
        const allowed = (fences[from] ?? []).join(', ') || 'nothing outside itself';
        context.report({ node, messageId: 'crossing', data: { from: shown(from), to: shown(to), target: path.relative(root, target), allowed } });
      };
      return {
        Program(node) {
          if (from.startsWith('unfenced:')) context.report({ node, messageId: 'unfenced', data: { part: from.slice(9) } });
        },
        ...importVisitors(check),
      };
    },
  };

  const noCycle = {
    meta: {
      type: 'problem',
      schema: [{ type: 'object', properties: { roots: { type: 'array', items: { type: 'string' } } }, additionalProperties: false }],
      messages: { cycle: 'import cycle: {{cycle}}' },
    },
    create(context) {
      const roots = (context.options[0]?.roots ?? ['server', 'cmd', 'protocol', 'web/src']).map((dir) => path.join(root, dir));
      const file = context.filename;
      if (!roots.some((dir) => file.startsWith(dir + path.sep))) return {};
      // The graph as on disk, with this file's imports as they are in the text being linted (an
      // editor's unsaved text, a test's probe).
      const onDisk = importGraph(roots);
      const imports = importsOf(file, context.sourceCode.text);
      const same = sameMembers(imports, onDisk.edges.get(file) ?? []);
      const graph = same ? onDisk : withEdges(onDisk.edges, file, imports);
      const component = graph.componentOf.get(file);
      if (!component) return {};
      const check = (node, source) => {
        if (typeof source !== 'string' || !source.startsWith('.')) return;
        const target = resolveModule(path.dirname(file), source);
        if (!target || graph.componentOf.get(target) !== component) return;
        const loop = [file, ...shortestPath(graph.edges, target, file)].map((f) => path.relative(root, f));
        context.report({ node, messageId: 'cycle', data: { cycle: loop.join(' → ') } });
      };
      return importVisitors(check);
    },
  };

  return { rules: { fence, 'no-cycle': noCycle } };
}

function importVisitors(check) {
  return {
    ImportDeclaration: (node) => check(node, node.source.value),
    ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
    ExportAllDeclaration: (node) => check(node, node.source.value),
    ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
  };
}

/** './x.js' from dir → the .ts/.tsx file it names, or undefined (packages, assets). */
function resolveModule(dir, spec) {
  const base = path.resolve(dir, spec);
  const candidates = [base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')];
  return candidates.find((candidate) => isFile(candidate) && /\.(ts|tsx)$/.test(candidate));
}

function isFile(file) {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

const graphs = new Map();

/** Every .ts/.tsx module under the roots, its relative imports, and its strongly connected component. */
function importGraph(roots) {
  const key = roots.join('\0');
  if (graphs.has(key)) return graphs.get(key);
  const files = roots.flatMap((dir) => walk(dir)).filter((f) => /\.(ts|tsx)$/.test(f) && !f.includes(`${path.sep}generated${path.sep}`));
  const edges = new Map(files.map((file) => [file, importsOf(file, readFileSync(file, 'utf8'))]));
  const graph = { edges, componentOf: stronglyConnected(edges) };
  graphs.set(key, graph);
  return graph;
}

/** The modules of this repository a file's text imports (type-only and dynamic imports included). */
function importsOf(file, text) {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  const targets = importedFiles
    .filter(({ fileName }) => fileName.startsWith('.'))
    .map(({ fileName }) => resolveModule(path.dirname(file), fileName))
    .filter(Boolean);
  return [...new Set(targets)];
}

function withEdges(edges, file, imports) {
  const changed = new Map(edges);
  changed.set(file, imports);
  return { edges: changed, componentOf: stronglyConnected(changed) };
}

function sameMembers(a, b) {
  return a.length === b.length && a.every((x) => b.includes(x));
}

function walk(dir) {
  let names;
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    if (name === 'node_modules' || name === 'dist') return [];
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? walk(full) : [full];
  });
}

/** Tarjan's algorithm; returns file → component id for files in a cycle (a component of two or more, or a self-import). */
function stronglyConnected(edges) {
  let index = 0;
  const indexOf = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const componentOf = new Map();
  let components = 0;
  const visit = (v) => {
    indexOf.set(v, index);
    low.set(v, index);
    index += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v), indexOf.get(w)));
      }
    }
    if (low.get(v) === indexOf.get(v)) {
      const members = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        members.push(w);
      } while (w !== v);
      const selfLoop = (edges.get(v) ?? []).includes(v);
      if (members.length > 1 || selfLoop) {
        components += 1;
        for (const m of members) componentOf.set(m, components);
      }
    }
  };
  for (const v of edges.keys()) if (!indexOf.has(v)) visit(v);
  return componentOf;
}

/** The shortest import path from → to (breadth first); both are in one cycle, so it exists. */
function shortestPath(edges, from, to) {
  const previous = new Map([[from, undefined]]);
  const queue = [from];
  while (queue.length) {
    const v = queue.shift();
    if (v === to) break;
    for (const w of edges.get(v) ?? []) {
      if (!previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  const route = [];
  for (let v = to; v !== undefined; v = previous.get(v)) route.unshift(v);
  return route[0] === from ? route : [from, to];
}
