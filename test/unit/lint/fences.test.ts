// The fences of eslint.config.js fire: for every part of server/, importing each part its fence
// does not allow is an error and importing each part it allows is not; a folder without a fence,
// an import cycle (type-only included), I/O in the domain, and cmd/ or web/ reaching into server/
// are errors too. The probes are linted as text placed at a real path, so the tree stays as it is.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { ESLint } from 'eslint';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const server = path.join(root, 'server');
// The fences as eslint.config.js declares them (read at run time: the config is plain JavaScript).
const { FENCES } = (await import(path.join(root, 'eslint.config.js'))) as { FENCES: Record<string, string[]> };
let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: root });
});

async function lint(file: string, text: string): Promise<{ ruleId: string | null; line: number; message: string }[]> {
  const [result] = await eslint.lintText(text, { filePath: file });
  return result!.messages.map(({ ruleId, line, message }) => ({ ruleId, line, message }));
}

/** A real module of a part: the part's own file, or the first .ts file in its folder. */
function moduleOf(part: string): string {
  const full = path.join(server, part);
  if (part.endsWith('.ts')) return full;
  const file = readdirSync(full).find((name) => name.endsWith('.ts') && statSync(path.join(full, name)).isFile());
  if (!file) throw new Error(`no module in server/${part}`);
  return path.join(full, file);
}

function importLine(from: string, target: string): string {
  let spec = path.relative(path.dirname(from), target).replace(/\.ts$/, '.js');
  if (!spec.startsWith('.')) spec = `./${spec}`;
  return `import '${spec}';`;
}

const fences = FENCES;
const parts = Object.keys(fences);
const covers = (allowed: string[], to: string) => allowed.includes('*') || allowed.some((k) => to === k || to.startsWith(`${k}/`));

describe('every fence of server/ fires', () => {
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
    forbidden.forEach((to, i) => expect(messages[i]!.message).toContain(`may not import server/${to}`));

    const allowedLines = allowed.map((to) => importLine(probe, moduleOf(to)));
    expect((await lint(probe, allowedLines.join('\n') + '\n')).filter((m) => m.ruleId === 'rehearsal/fence')).toEqual([]);
  });

  it('the composition root may import every part', async () => {
    const probe = path.join(server, 'app', '__fence_probe__.ts');
    const lines = parts.filter((p) => p !== 'app').map((to) => importLine(probe, moduleOf(to)));
    expect((await lint(probe, lines.join('\n') + '\n')).filter((m) => m.ruleId === 'rehearsal/fence')).toEqual([]);
  });

  it('a folder without a fence is an error', async () => {
    const messages = await lint(path.join(server, 'newfolder', 'thing.ts'), 'export const thing = 1;\n');
    expect(messages).toContainEqual(expect.objectContaining({ ruleId: 'rehearsal/fence', message: expect.stringContaining('server/newfolder has no fence') }));
  });
});

describe('no import cycles', () => {
  it('a value import that closes a loop is an error that names the loop', async () => {
    // evidence.ts imports digest-text.ts; digest-text.ts importing evidence.ts back closes a loop.
    const file = path.join(server, 'evidence', 'digest-text.ts');
    const messages = await lint(file, "import { sha256Hex } from './evidence.js';\nexport const x = sha256Hex;\n");
    expect(messages).toContainEqual(expect.objectContaining({
      ruleId: 'rehearsal/no-cycle',
      message: 'import cycle: server/evidence/digest-text.ts → server/evidence/evidence.ts → server/evidence/digest-text.ts',
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
    expect(fromCmd.map((m) => m.ruleId)).toContain('no-restricted-imports');
    expect(fromWeb.map((m) => m.ruleId)).toContain('no-restricted-imports');
  });
});
