// resourceExists: an object of any apiVersion/kind with the given name exists in the sandbox that
// was restored from the check's source namespace (the runner resolves which sandbox; the check's
// `resourceExists.sourceNamespace` wins over the check-level one, and the first source is the
// default).
//
// A missing object is `fail`; a kind the cluster does not serve (CRD not installed) is `fail` too,
// since the object cannot exist there; an API error (RBAC, server unavailable) is `error`.

import type { CheckExecutor } from './check.js';
import { error, fail, isOutcome, pass, requireBlock } from './check.js';

export const runResourceExistsCheck: CheckExecutor = async (check, context) => {
  const spec = requireBlock(check, 'resourceExists');
  if (isOutcome(spec)) return spec;
  if (!spec.apiVersion || !spec.kind || !spec.name)
    return error('resourceExists needs apiVersion, kind and name');
  const subject = `${spec.kind} ${context.namespace}/${spec.name} (${spec.apiVersion}, restored from ${context.sourceNamespace})`;

  const lookup = await context.reader.getResource(spec.apiVersion, spec.kind, context.namespace, spec.name);
  switch (lookup.state) {
    case 'exists':
      return pass(`${subject} exists`);
    case 'not-found':
      return fail(`${subject} not found`);
    case 'unknown-kind':
      return fail(`${subject} cannot exist: ${lookup.message}`);
    case 'error':
      return error(`cannot read ${subject}: ${lookup.reason}: ${lookup.message}`);
  }
};
