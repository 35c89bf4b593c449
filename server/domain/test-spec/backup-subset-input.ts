// CreateTestInput.labelSelector and .includedResources → spec.backupSource.labelSelector and
// .includedResources (issue 32: restore a subset of a large namespace), validated to the limits
// the RestoreTest CRD stores, every offending field named with its path
// (labelSelector.matchExpressions[0].operator). Which provider can express which subset is a
// separate question (subsetUnsupported): a tool that cannot restore exactly the subset is refused,
// never handed "everything".
import {
  LABEL_SELECTOR_OPERATORS,
  type LabelSelector,
  type LabelSelectorOperator,
  type Provider,
  type ResourceTypeRef,
} from '../resources/resources.js';
import { Checker, type RestoreFieldError } from './restore-input.js';

export const SUBSET_LIMITS = { matchLabels: 16, matchExpressions: 16, values: 16, includedResources: 32 } as const;

// Kubernetes' label syntax (apimachinery validation): a key is an optional DNS-subdomain prefix
// (at most 253) and "/", then a name of at most 63; a value is at most 63 characters, possibly empty.
const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const LABEL_PREFIX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const KEY_RULE = 'must be a label key: an optional DNS-subdomain prefix and "/", then at most 63 letters, digits, "-", "_" or "."';
const VALUE_RULE = 'must be a label value: at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit';

export function isLabelKey(key: string): boolean {
  const slash = key.indexOf('/');
  if (slash === -1) return LABEL_NAME.test(key);
  const prefix = key.slice(0, slash);
  return prefix.length <= 253 && LABEL_PREFIX.test(prefix) && LABEL_NAME.test(key.slice(slash + 1));
}

export function isLabelValue(value: string): boolean {
  return value.length <= 63 && LABEL_VALUE.test(value);
}

export interface BackupSubset {
  labelSelector?: LabelSelector;
  includedResources?: ResourceTypeRef[];
}

/** The subset fields of a body (absent, null or empty = no subset), or the errors. */
export function validateSubsetInput(labelSelector: unknown, includedResources: unknown): { subset: BackupSubset; errors: RestoreFieldError[] } {
  const check = new Checker();
  const subset: BackupSubset = {};
  if (labelSelector !== undefined && labelSelector !== null) {
    const selector = checkSelector(check, 'labelSelector', labelSelector);
    if (selector) subset.labelSelector = selector;
  }
  if (includedResources !== undefined && includedResources !== null) {
    // Each kept with its position in the body, so a repeat is named where the user wrote it.
    const checked = (check.array('includedResources', includedResources, SUBSET_LIMITS.includedResources) ?? []).flatMap((entry, index) => {
      const type = check.resourceType(`includedResources[${index}]`, entry, false);
      return type ? [{ type, index }] : [];
    });
    const seen = new Map<string, number>();
    for (const { type, index } of checked) {
      const key = `${type.group ?? ''}/${type.resource}`;
      const first = seen.get(key);
      if (first !== undefined) check.fail(`includedResources[${index}]`, `duplicates includedResources[${first}]`);
      else seen.set(key, index);
    }
    const types = checked.map((entry) => entry.type);
    if (types.length > 0) subset.includedResources = types;
  }
  return check.errors.length > 0 ? { subset: {}, errors: check.errors } : { subset, errors: [] };
}

function checkSelector(check: Checker, field: string, value: unknown): LabelSelector | undefined {
  if (!check.object(field, value, ['matchLabels', 'matchExpressions'], [])) return undefined;
  const before = check.errors.length;
  const selector: LabelSelector = {};
  if (value.matchLabels !== undefined) {
    const labels = value.matchLabels;
    if (typeof labels !== 'object' || labels === null || Array.isArray(labels)) check.fail(`${field}.matchLabels`, 'must be an object of label keys and values');
    else {
      const entries = Object.entries(labels as Record<string, unknown>);
      if (entries.length > SUBSET_LIMITS.matchLabels) check.fail(`${field}.matchLabels`, `must hold at most ${SUBSET_LIMITS.matchLabels} labels`);
      for (const [key, labelValue] of entries) {
        if (!isLabelKey(key)) check.fail(`${field}.matchLabels.${key}`, KEY_RULE);
        else if (typeof labelValue !== 'string' || !isLabelValue(labelValue)) check.fail(`${field}.matchLabels.${key}`, VALUE_RULE);
      }
      if (entries.length > 0) selector.matchLabels = Object.fromEntries(entries) as Record<string, string>;
    }
  }
  const expressions = check.array(`${field}.matchExpressions`, value.matchExpressions, SUBSET_LIMITS.matchExpressions) ?? [];
  const requirements = expressions.flatMap((entry, index) => {
    const at = `${field}.matchExpressions[${index}]`;
    if (!check.object(at, entry, ['key', 'operator', 'values'], ['key', 'operator'])) return [];
    const own = check.errors.length;
    if (entry.key !== undefined && (typeof entry.key !== 'string' || !isLabelKey(entry.key))) check.fail(`${at}.key`, KEY_RULE);
    const operator = entry.operator;
    const known = (LABEL_SELECTOR_OPERATORS as readonly unknown[]).includes(operator);
    if (operator !== undefined && !known) check.fail(`${at}.operator`, `must be one of ${LABEL_SELECTOR_OPERATORS.join(', ')}`);
    const values = check.array(`${at}.values`, entry.values, SUBSET_LIMITS.values);
    (values ?? []).forEach((labelValue, position) => {
      if (typeof labelValue !== 'string' || !isLabelValue(labelValue)) check.fail(`${at}.values[${position}]`, VALUE_RULE);
    });
    const needsValues = operator === 'In' || operator === 'NotIn';
    if (known && needsValues && (values ?? []).length === 0) check.fail(`${at}.values`, `is required (at least one value) for ${String(operator)}`);
    if (known && !needsValues && values !== undefined && values.length > 0) check.fail(`${at}.values`, `must be absent for ${String(operator)}`);
    if (check.errors.length > own) return [];
    return [{ key: entry.key as string, operator: operator as LabelSelectorOperator, ...(needsValues ? { values: values as string[] } : {}) }];
  });
  if (check.errors.length > before) return undefined;
  if (requirements.length > 0) selector.matchExpressions = requirements;
  // An empty selector selects everything: no subset at all.
  return selector.matchLabels || selector.matchExpressions ? selector : undefined;
}

/**
 * Why this provider's tool cannot restore exactly this subset (a field and a message for a 400),
 * or undefined when it can. Trilio's resourceSelector takes the objects a labelSelector OR a
 * gvkSelector selects (a union), so "these types AND these labels" cannot be said to it.
 */
export function subsetUnsupported(provider: Provider, subset: BackupSubset): { field: string; message: string } | undefined {
  if (provider === 'trilio' && subset.labelSelector && subset.includedResources) {
    return {
      field: 'includedResources',
      message:
        'cannot be combined with labelSelector for provider trilio: its Restore selects the objects matching either (resourceSelector labelSelector OR gvkSelector), which would restore more than the subset; use one of them',
    };
  }
  return undefined;
}
