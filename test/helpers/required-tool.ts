// Tests that need a tool this machine may lack (MariaDB, kubectl, poppler-utils, OpenSSL) say so
// instead of passing quietly. Off CI a missing tool skips those tests with a console warning that
// names the tool and how to install it (a laptop without MariaDB can still run the rest). Under
// CI=true (.ci/run sets it), where test/setup.sh installs every tool, a missing tool is a failing
// test: a CI machine that lost a package must not turn real tests into green skips.
import { describe, it } from '@jest/globals';

export interface Tool {
  /** How people call it: "MariaDB", "poppler-utils". */
  name: string;
  available: boolean;
  /** How to get it, e.g. "apt-get install -y mariadb-server". */
  install: string;
}

const inCi = process.env.CI === 'true';

function missing(tool: Tool, what: string): string {
  return `${what} needs ${tool.name}, which this machine does not have (${tool.install})`;
}

function failInCi(message: string): never {
  throw new Error(`${message}; CI=true, and CI installs every tool (bash test/setup.sh)`);
}

/** `describe` when the tool is there; otherwise a loud skip, or under CI one failing test. */
export function describeWithTool(tool: Tool, title: string, body: () => void): void {
  if (tool.available) {
    describe(title, body);
    return;
  }
  const message = missing(tool, `"${title}"`);
  if (inCi) {
    describe(title, () => it(`has ${tool.name}`, () => failInCi(message)));
    return;
  }
  console.warn(`SKIPPED: ${message}`);
  describe.skip(title, body);
}

/**
 * For a test whose last steps need the tool: true when it is there; otherwise it warns and returns
 * false (the caller returns), or under CI throws.
 */
export function toolPresent(tool: Tool, what: string): boolean {
  if (tool.available) return true;
  const message = missing(tool, what);
  if (inCi) failInCi(message);
  console.warn(`SKIPPED: ${message}`);
  return false;
}
