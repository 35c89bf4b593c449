// Prints what a command got from the API in the format chosen with -o.
import type { CommandContext } from '../commands/command.js';
import { renderJson } from './json.js';
import type { Printer, TableOptions } from './printers.js';
import { renderTable } from './table.js';
import { renderYaml } from './yaml.js';

export function tableOptions(context: CommandContext, allNamespaces = false): TableOptions {
  return {
    wide: context.global.output === 'wide',
    allNamespaces,
    now: context.io.now(),
    color: context.color,
  };
}

/** json/yaml of the API's own value; false for table/wide/name. */
export async function printStructured(context: CommandContext, value: unknown): Promise<boolean> {
  if (context.global.output === 'json') {
    context.io.stdout(renderJson(value));
    return true;
  }
  if (context.global.output === 'yaml') {
    context.io.stdout(await renderYaml(value));
    return true;
  }
  return false;
}

export interface ListOptions {
  allNamespaces?: boolean;
  /** Scope named in kubectl's "No resources found in X namespace." */
  namespace?: string;
}

/** A list: a table (NAMESPACE column with -A), one resource/name per line, or the API's array. */
export async function printList<T>(
  context: CommandContext,
  items: readonly T[],
  printer: Printer<T>,
  options: ListOptions = {},
): Promise<void> {
  if (await printStructured(context, items)) return;
  if (context.global.output === 'name') {
    context.io.stdout(items.map((item) => `${printer.resourceName!(item)}\n`).join(''));
    return;
  }
  if (items.length === 0) {
    // kubectl says this on stderr, so scripts reading stdout see an empty table.
    context.io.stderr(
      options.namespace && !options.allNamespaces
        ? `No resources found in ${options.namespace} namespace.\n`
        : 'No resources found\n',
    );
    return;
  }
  const table = tableOptions(context, options.allNamespaces ?? false);
  context.io.stdout(renderTable(printer.headers(table), items.map((item) => printer.row(item, table))));
}

/** One object: a one-row table, resource/name, or the API's object. */
export async function printOne<T>(context: CommandContext, item: T, printer: Printer<T>): Promise<void> {
  if (await printStructured(context, item)) return;
  if (context.global.output === 'name') {
    context.io.stdout(`${printer.resourceName!(item)}\n`);
    return;
  }
  const table = tableOptions(context);
  context.io.stdout(renderTable(printer.headers(table), [printer.row(item, table)]));
}
