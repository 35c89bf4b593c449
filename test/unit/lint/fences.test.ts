// The fences of eslint.config.js fire: for every part (each of server/, and the top-level protocol/
// and cmd/), importing each part its fence does not allow is an error and importing each part it
// allows is not; a folder without a fence, an import cycle (type-only included), I/O in the
// domain, and cmd/ or web/ reaching into server/ are errors too. The probes are linted as text
// placed at a real path, so the tree stays as it is.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { ESLint } from 'eslint';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const server = path.join(root, 'server');
// The fences as eslint.config.js declares them (read at run time: the config is plain JavaScript).
const { FENCES, TOP_LEVEL_PARTS } = (await import(path.join(root, 'eslint.config.js'))) as {
  FENCES: Record<string, string[]>;
  TOP_LEVEL_PARTS: string[];
};
let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: root });
});

async function lint(file: string, text: string): Promise<{ ruleId: string | null; line: number; message: string }[]> {
  const [result] = await eslint.lintText(text, { filePath: file });
  return result!.messages.map(({ ruleId, line, message }) => ({ ruleId, line, message }));
}

/** Where a part is: a top-level folder (protocol/, cmd/) or a folder or file of server/. */
const locationOf = (part: string) => path.join(TOP_LEVEL_PARTS.includes(part) ? root : server, part);
/** How the fence's messages name a part. */
const shown = (part: string) => (TOP_LEVEL_PARTS.includes(part) ? `${part}/` : `server/${part}`);

/** The first .ts file of a folder, or of its first subfolder that has one (cmd/ holds only folders). */
function firstModule(dir: string): string | undefined {
  const names = readdirSync(dir).sort();
  const file = names.find((name) => name.endsWith('.ts') && statSync(path.join(dir, name)).isFile());
  if (file) return path.join(dir, file);
  for (const name of names) {
    const sub = path.join(dir, name);
    if (statSync(sub).isDirectory() && name !== 'generated') {
      const found = firstModule(sub);
      if (found) return found;
    }
  }
  return undefined;
}

/** A real module of a part: the part's own file, or the first .ts file in its folder. */
function moduleOf(part: string): string {
  if (part.endsWith('.ts')) return locationOf(part);
  const file = firstModule(locationOf(part));
  if (!file) throw new Error(`no module in ${shown(part)}`);
  return file;
}

function importLine(from: string, target: string): string {
  let spec = path.relative(path.dirname(from), target).replace(/\.ts$/, '.js');
  if (!spec.startsWith('.')) spec = `./${spec}`;
  return `import '${spec}';`;
}

const fences = FENCES;
const parts = Object.keys(fences);
const covers = (allowed: string[], to: string) => allowed.includes('*') || allowed.some((k) => to === k || to.startsWith(`${k}/`));

describe('every fence fires (server/, protocol/, cmd/)', () => {
  it.each(parts.filter((part) => !fences[part]!.includes('*')))('%s', async (part) => {
    // A folder gets a new file; a single-file part (server/config.ts) is probed as itself.
    const probe = part.endsWith('.ts') ? moduleOf(part) : path.join(path.dirname(moduleOf(part)), '__fence_probe__.ts');
    const others = parts.filter((to) => to !== part && !to.startsWith(`${part}/`));
    const forbidden = others.filter((to) => !covers(fences[part]!, to));
    const allowed = others.filter((to) => covers(fences[part]!, to));
    expect(forbidden.length).toBeGreaterThan(0);

    const lines = forbidden.map((to) => importLine(probe, moduleOf(to)));
    const messages = (await lint(probe, lines.join('\n') + '\n')).filter((m) => m.ruleId === 'rehearsal/fence');
    // One error per forbidden import, on its own line, naming the part it crosses into.
    expect(messages.map((m) => m.line)).toEqual(forbidden.map((_, i) => i + 1));
    forbidden.forEach((to, i) => expect(messages[i]!.message).toContain(`${shown(part)} may not import ${shown(to)}`));

    const allowedLines = allowed.map((to) => importLine(probe, moduleOf(to)));
    expect((await lint(probe, allowedLines.join('\n') + '\n')).filter((m) => m.ruleId === 'rehearsal/fence')).toEqual([]);
  });

  it('the composition root may import every part of server/ and the protocol', async () => {
    const probe = path.join(server, 'app', '__fence_probe__.ts');
    const lines = parts.filter((p) => p !== 'app' && p !== 'cmd').map((to) => importLine(probe, moduleOf(to)));
    expect((await lint(probe, lines.join('\n') + '\n')).filter((m) => m.ruleId === 'rehearsal/fence')).toEqual([]);
  });

  it('a folder without a fence is an error', async () => {
    const messages = await lint(path.join(server, 'newfolder', 'thing.ts'), 'export const thing = 1;\n');
    expect(messages).toContainEqual(expect.objectContaining({ ruleId: 'rehearsal/fence', message: expect.stringContaining('server/newfolder has no fence') }));
  });
});

describe('no import cycles', () => {
  it('a value import that closes a loop is an error that names the loop', async () => {
    // report-encoding.ts imports raw-zlib.ts; raw-zlib.ts importing report-encoding.ts back closes a loop.
    const file = path.join(server, 'report-codec', 'raw-zlib.ts');
    const messages = await lint(file, "import { encodeDetails } from './report-encoding.js';\nexport const x = encodeDetails;\n");
    expect(messages).toContainEqual(expect.objectContaining({
      ruleId: 'rehearsal/no-cycle',
      message: 'import cycle: server/report-codec/raw-zlib.ts → server/report-codec/report-encoding.ts → server/report-codec/raw-zlib.ts',
    }));
  });

  it('a type-only import that closes a loop is an error too', async () => {
    // layout.ts imports canvas.ts; canvas.ts taking a type from layout.ts closes a loop.
    const file = path.join(server, 'pdf', 'layout', 'canvas.ts');
    const messages = await lint(file, "import type { PdfWriter } from './layout.js';\nexport type W = PdfWriter;\n");
    expect(messages.map((m) => m.ruleId)).toContain('rehearsal/no-cycle');
  });

  it('the tree as committed has none', async () => {
    const [result] = await eslint.lintFiles(['server/evidence/evidence.ts', 'server/pdf/layout/layout.ts']);
    expect(result!.messages.filter((m) => m.ruleId === 'rehearsal/no-cycle')).toEqual([]);
  });
});

describe('the older rules still hold', () => {
  it('domain/ does no I/O', async () => {
    const messages = await lint(path.join(server, 'domain', 'run', '__probe__.ts'), "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n");
    expect(messages.map((m) => m.ruleId)).toContain('no-restricted-imports');
  });

  it('cmd/ and web/ never import server/', async () => {
    const fromCmd = await lint(path.join(root, 'cmd', 'kubectl-restoretest', '__probe__.ts'), "import '../../server/config.js';\n");
    const fromWeb = await lint(path.join(root, 'web', 'src', '__probe__.ts'), "import '../../server/config.js';\n");
    expect(fromCmd).toContainEqual(expect.objectContaining({ ruleId: 'rehearsal/fence', message: expect.stringContaining('cmd/ may not import server/config.ts') }));
    expect(fromWeb.map((m) => m.ruleId)).toContain('no-restricted-imports');
  });

  it('cmd/ and the server parts that list it import protocol/', async () => {
    const fromCmd = await lint(path.join(root, 'cmd', 'kubectl-restoretest', '__probe__.ts'), "import '../../protocol/test-input.js';\n");
    const fromEvidence = await lint(path.join(server, 'evidence', '__probe__.ts'), "import '../../protocol/test-input.js';\n");
    expect([...fromCmd, ...fromEvidence].filter((m) => m.ruleId === 'rehearsal/fence')).toEqual([]);
  });
});
