// Columns of `kubectl restoretest coverage`: one row per backed-up namespace.
import type { components } from '../../../openapi/client.js';
import { age, NONE, orNone } from './format.js';
import type { Printer } from './printers.js';

export type NamespaceCoverage = components['schemas']['NamespaceCoverage'];

export const coveragePrinter: Printer<NamespaceCoverage> = {
  resourceName: (entry) => `namespace/${entry.namespace}`,
  headers: (options) => [
    'NAMESPACE',
    'STATUS',
    'BACKED UP BY',
    'LAST BACKUP',
    'LAST PASS',
    'TESTS',
    ...(options.wide ? ['WINDOW', 'LAST PASS AT'] : []),
  ],
  row: (entry, options) => [
    entry.namespace,
    entry.status,
    orNone(entry.backedUpBy.join(',')),
    entry.lastBackupAt ? age(entry.lastBackupAt, options.now) : NONE,
    entry.lastPassedAt ? age(entry.lastPassedAt, options.now) : NONE,
    orNone(entry.tests.join(',')),
    ...(options.wide ? [entry.window, orNone(entry.lastPassedAt)] : []),
  ],
};
