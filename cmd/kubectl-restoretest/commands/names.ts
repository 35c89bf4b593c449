// The NAME positional shared by commands that act on one RestoreTest.
import type { Argv } from 'yargs';
import { UsageError } from '../errors.js';
import { checkName } from '../validate.js';
import type { CommandContext } from './command.js';

export function nameArgument<T>(yargs: Argv<T>, describe = 'name of the RestoreTest') {
  return yargs.positional('name', { type: 'string', describe, demandOption: true });
}

/** A valid test name; -A makes no sense with one (kubectl: no retrieving by name across namespaces). */
export function testName(context: CommandContext, value: unknown): string {
  if (context.global.allNamespaces) throw new UsageError('a RestoreTest cannot be named across all namespaces (-A); use -n NAMESPACE');
  return checkName(String(value), 'NAME');
}
