// The note on stderr when a list across namespaces (-A) left some out because the caller may not
// list there (issue 30): like kubectl's warnings, beside the table, never in it, so -o json/yaml
// and scripts reading stdout see only the objects.
import type { OmittedNamespaces } from '../api.js';

export function omittedNote(omitted: OmittedNamespaces, resource: string): string {
  const what = omitted.count === 1 ? '1 namespace' : `${omitted.count} namespaces`;
  const which = omitted.names.length > 0 ? ` (${omitted.names.join(', ')})` : '';
  return `warning: ${what}${which} left out: you may not list ${resource}.rehearsal.dev there\n`;
}
