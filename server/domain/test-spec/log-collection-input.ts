// spec.logCollection (issue 30): which container logs a failed or partial run's diagnosis keeps.
// The API body and the RestoreTest spec have the same shape; an omitted field takes its default
// when the diagnosis is collected (resolveLogCollection), so a test written before the field
// existed gets the defaults too (domain/run/log-collection.ts). The CRD states the same bounds for
// kubectl users.
import {
  LOG_COLLECTION_FIELDS,
  LOG_COLLECTION_LINES_RANGE,
  LOG_CONTAINERS,
  type LogContainers,
} from '../../../protocol/test-input.js';
import type { LogCollectionSpec } from '../resources/restore-test.resource.js';

/** One offending field (the shape of test-input.ts's FieldError, which collects these). */
interface FieldError {
  field: string;
  message: string;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Validates body.logCollection; errors name the field (logCollection.lines). The block itself is
 * absent or an object (the schema publishes no null for it, so the server refuses one as well);
 * its fields may be null, meaning omitted. Only the fields given are written to the spec (the
 * CRD's defaults fill in the rest when it is stored; a test without the block gets the same
 * defaults when its diagnosis is collected).
 */
export function validateLogCollectionInput(value: unknown): { spec?: LogCollectionSpec; errors: FieldError[] } {
  if (value === undefined) return { errors: [] };
  if (!isPlainObject(value)) {
    return { errors: [{ field: 'logCollection', message: 'must be an object (lines, containers, initContainers, previous, events)' }] };
  }
  const errors: FieldError[] = [];
  const spec: LogCollectionSpec = {};
  for (const field of Object.keys(value)) {
    if (!(LOG_COLLECTION_FIELDS as readonly string[]).includes(field)) {
      errors.push({ field: `logCollection.${field}`, message: 'is not a known field' });
    }
  }
  const lines = value.lines;
  if (lines !== undefined && lines !== null) {
    const { min, max } = LOG_COLLECTION_LINES_RANGE;
    if (typeof lines !== 'number' || !Number.isInteger(lines)) {
      errors.push({ field: 'logCollection.lines', message: 'must be an integer' });
    } else if (lines < min || lines > max) {
      errors.push({ field: 'logCollection.lines', message: `must be between ${min} and ${max}` });
    } else spec.lines = lines;
  }
  const containers = value.containers;
  if (containers !== undefined && containers !== null) {
    if (typeof containers !== 'string' || !(LOG_CONTAINERS as readonly string[]).includes(containers)) {
      errors.push({ field: 'logCollection.containers', message: `must be one of ${LOG_CONTAINERS.join(', ')}` });
    } else spec.containers = containers as LogContainers;
  }
  for (const field of ['initContainers', 'previous', 'events'] as const) {
    const flag = value[field];
    if (flag === undefined || flag === null) continue;
    if (typeof flag !== 'boolean') errors.push({ field: `logCollection.${field}`, message: 'must be a boolean' });
    else spec[field] = flag;
  }
  return errors.length > 0 ? { errors } : { spec, errors };
}
