// Columns of `kubectl restoretest sandboxes`: one row per namespace carrying Rehearsal's sandbox
// label, with what the server makes of it. -o name gives namespace/NAME, which kubectl accepts.
import type { SandboxInfo } from '../api.js';
import { age, orNone, until } from './format.js';
import type { Printer } from './printers.js';

export const sandboxPrinter: Printer<SandboxInfo> = {
  resourceName: (sandbox) => `namespace/${sandbox.name}`,
  headers: (options) => [
    'NAME',
    'STATE',
    'TEST',
    'RUN',
    'AGE',
    'EXPIRES',
    ...(options.wide ? ['UID', 'MESSAGE'] : []),
  ],
  row: (sandbox, options) => [
    sandbox.name,
    sandbox.state,
    sandbox.test && sandbox.testNamespace ? `${sandbox.testNamespace}/${sandbox.test}` : orNone(sandbox.test),
    orNone(sandbox.run),
    age(sandbox.createdAt, options.now),
    expires(sandbox.expiresAt, options.now),
    ...(options.wide ? [sandbox.uid, sandbox.message] : []),
  ],
};

/** "in 30m" ahead; "3h ago" once past (the janitor removes an expired or orphaned one then). */
function expires(expiresAt: string | undefined, now: Date): string {
  const at = expiresAt ? Date.parse(expiresAt) : Number.NaN;
  return !Number.isNaN(at) && at <= now.getTime() ? `${age(expiresAt, now)} ago` : until(expiresAt, now);
}
