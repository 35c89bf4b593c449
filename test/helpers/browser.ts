// A real browser for the dashboard tests: Debian's chromium-headless-shell (installed by
// test/setup.sh) driven by playwright-core over CDP, resolving nothing but 127.0.0.1. Also runs
// axe-core in a page and returns its serious and critical violations.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';

const require = createRequire(import.meta.url);

export function chromiumPath(): string {
  try {
    return execFileSync('sh', ['-c', 'command -v chromium-headless-shell'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('chromium-headless-shell is required for the browser tests: bash test/setup.sh installs it');
  }
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    args: [
      '--no-sandbox', // tests may run as root, where Chromium's sandbox refuses to start
      '--disable-gpu',
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
    ],
  });
}

export interface AxeViolation {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/** axe-core's serious and critical violations on the page as it is now. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated over CDP, not added as a <script>: the dashboard's CSP (rightly) runs no inline
  // script but its own, and the pages are tested under it.
  await page.evaluate(readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const result = await axe.run();
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
