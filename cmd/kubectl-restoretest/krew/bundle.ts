// The plugin bundled for the krew archive (package.sh runs this with the repository's Node 24):
//
//   node bundle.ts OUTDIR METAFILE   OUTDIR/main.mjs and its chunks; esbuild's metafile
//
// ES modules split at the plugin's dynamic imports, so each verb loads what it needs: a `list`
// neither client-node (~0.5 s, exec credentials and the like; connect.ts) nor the YAML parser.
// Measured against one file of 19 MB: --help and list start in ~225 ms instead of ~320 ms.
//
// Only erasable TypeScript here: Node strips the types.
import { build, type Plugin } from 'esbuild';
import { pathToFileURL } from 'node:url';

/**
 * CommonJS packages in the bundle (undici, ...) call require() for Node's built-ins: in an ES module
 * there is none, so every chunk makes one.
 */
export const REQUIRE_BANNER =
  'import { createRequire as __rehearsalCreateRequire } from "node:module"; const require = __rehearsalCreateRequire(import.meta.url);';

/** A valid JavaScript identifier can be re-exported under its own name. */
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/**
 * The module that stands in for `import(specifier)`: the package's namespace re-exported name by
 * name. With code splitting, esbuild gives a dynamically imported CommonJS module's exports as
 * `default` only (evanw/esbuild#3245), so `const { parse } = await import('yaml')` would find no
 * `parse`; named exports written out here are static, which an ES module chunk can carry.
 */
export function namedExportsModule(specifier: string, names: readonly string[]): string {
  const lines = [`import * as namespace from ${JSON.stringify(specifier)};`];
  names.forEach((name, index) => {
    if (name === 'default' || !IDENTIFIER.test(name)) return;
    lines.push(`const export${index} = namespace[${JSON.stringify(name)}];`, `export { export${index} as ${name} };`);
  });
  if (names.includes('default')) lines.push('export default namespace.default;');
  return `${lines.join('\n')}\n`;
}

/**
 * Every `import('package')` goes through namedExportsModule, with the names Node itself gives the
 * file esbuild resolves (loaded here, at build time, once).
 */
export function namedDynamicImports(): Plugin {
  return {
    name: 'named-dynamic-imports',
    setup(plugin) {
      plugin.onResolve({ filter: /^[^./]/ }, async (args) => {
        const resolving = (args.pluginData as { resolving?: boolean } | undefined)?.resolving === true; // the call below
        if (args.kind !== 'dynamic-import' || resolving || args.path.startsWith('node:')) return undefined;
        const resolved = await plugin.resolve(args.path, {
          kind: 'dynamic-import',
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: { resolving: true },
        });
        if (resolved.errors.length > 0 || resolved.external) return undefined;
        return { path: args.path, namespace: 'named-dynamic-import', pluginData: { file: resolved.path, resolveDir: args.resolveDir } };
      });
      plugin.onLoad({ filter: /.*/, namespace: 'named-dynamic-import' }, async (args) => {
        const { file, resolveDir } = args.pluginData as { file: string; resolveDir: string };
        const names = Object.keys((await import(pathToFileURL(file).href)) as Record<string, unknown>);
        return { contents: namedExportsModule(args.path, names), loader: 'js', resolveDir };
      });
    },
  };
}

export async function bundle(outdir: string, metafile: string): Promise<void> {
  const { writeFileSync } = await import('node:fs');
  const result = await build({
    entryPoints: ['cmd/kubectl-restoretest/main.ts'],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    splitting: true,
    outdir,
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunk-[hash]',
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
    banner: { js: REQUIRE_BANNER },
    plugins: [namedDynamicImports()],
  });
  writeFileSync(metafile, JSON.stringify(result.metafile));
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  const [outdir, metafile] = process.argv.slice(2);
  if (!outdir || !metafile) {
    console.error('usage: bundle.ts OUTDIR METAFILE (run in the repository root)');
    process.exitCode = 2;
  } else {
    await bundle(outdir, metafile);
  }
}
