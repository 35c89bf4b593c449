// Standard status conditions: lastTransitionTime moves only when the status value changes.
import type { Condition } from '../domain/resources/resources.js';

export interface ReconcileResult {
  /** Call again after this many milliseconds (undefined = only on the next change). */
  requeueAfterMs?: number;
}

export function setCondition(
  conditions: Condition[] | undefined,
  next: Omit<Condition, 'lastTransitionTime'>,
  now: Date,
): Condition[] {
  const list = [...(conditions ?? [])];
  const index = list.findIndex((condition) => condition.type === next.type);
  const previous = index >= 0 ? list[index] : undefined;
  const lastTransitionTime = previous && previous.status === next.status ? previous.lastTransitionTime : now.toISOString();
  const condition: Condition = { ...next, lastTransitionTime };
  if (index >= 0) list[index] = condition;
  else list.push(condition);
  return list;
}
