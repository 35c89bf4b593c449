// Golden files of the plugin's output: test/fixtures/plugin/golden/<name>.txt. A difference fails
// the test; REHEARSAL_UPDATE_GOLDEN=1 rewrites the files instead (review the diff, then commit).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from '@jest/globals';

const GOLDEN_DIR = fileURLToPath(new URL('../../../fixtures/plugin/golden/', import.meta.url));
export const UPDATE_GOLDEN = process.env.REHEARSAL_UPDATE_GOLDEN === '1';

export function expectGolden(name: string, actual: string): void {
  const file = `${GOLDEN_DIR}${name}.txt`;
  if (UPDATE_GOLDEN) {
    mkdirSync(GOLDEN_DIR, { recursive: true });
    writeFileSync(file, actual);
    return;
  }
  if (!existsSync(file)) {
    throw new Error(`no golden file ${file}; create it with REHEARSAL_UPDATE_GOLDEN=1 npm run test:unit -- test/unit/plugin`);
  }
  expect(actual).toBe(readFileSync(file, 'utf8'));
}
