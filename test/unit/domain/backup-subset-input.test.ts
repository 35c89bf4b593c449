// spec.backupSource.labelSelector / includedResources through the API body (issue 32): every
// offending field named with its path, the CRD's bounds, and the combination a tool cannot express
// (Trilio: labels and types at once) refused at create time rather than restored whole.
import { describe, expect, it } from '@jest/globals';
import { inputToSpec, specForUpdate, validateTestInput, type FieldError, type ValidTestInput } from '../../../server/domain/test-spec/test-input.js';
import { isLabelKey, isLabelValue, validateSubsetInput } from '../../../server/domain/test-spec/backup-subset-input.js';

const minimal = { name: 'shop', provider: 'velero', sourceNamespaces: ['shop'], cron: '0 2 * * *' };
const deployments = { group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments' };

function valid(body: unknown): ValidTestInput {
  const result = validateTestInput(body);
  if (!result.ok) throw new Error(`unexpected errors: ${JSON.stringify(result.errors)}`);
  return result.value;
}

function errors(body: unknown): FieldError[] {
  const result = validateTestInput(body);
  if (result.ok) throw new Error('expected validation errors');
  return result.errors;
}

describe('a subset in the API body', () => {
  it('becomes spec.backupSource.labelSelector and includedResources', () => {
    const input = valid({
      ...minimal,
      labelSelector: { matchLabels: { app: 'a' }, matchExpressions: [{ key: 'app.kubernetes.io/part-of', operator: 'Exists' }] },
      includedResources: [deployments, { version: 'v1', kind: 'Service', resource: 'services', group: '' }],
    });
    expect(inputToSpec(input).backupSource).toEqual({
      backupName: 'latest',
      namespaces: [{ name: 'shop' }],
      labelSelector: { matchLabels: { app: 'a' }, matchExpressions: [{ key: 'app.kubernetes.io/part-of', operator: 'Exists' }] },
      includedResources: [deployments, { version: 'v1', kind: 'Service', resource: 'services' }],
    });
  });

  it('absent, null, an empty selector or an empty list: no subset (every object restored)', () => {
    for (const body of [minimal, { ...minimal, labelSelector: null, includedResources: null }, { ...minimal, labelSelector: {}, includedResources: [] }]) {
      const spec = inputToSpec(valid(body));
      expect(spec.backupSource).toEqual({ backupName: 'latest', namespaces: [{ name: 'shop' }] });
    }
  });

  it('names each bad field of the selector with its path', () => {
    expect(
      errors({
        ...minimal,
        labelSelector: {
          matchLabels: { 'bad key!': 'x', app: 'no spaces' },
          matchExpressions: [
            { key: 'app', operator: 'Equals', values: ['a'] },
            { key: 'tier', operator: 'In' },
            { key: 'legacy', operator: 'Exists', values: ['x'] },
            { operator: 'Exists' },
          ],
          other: 1,
        },
      }).map((error) => error.field),
    ).toEqual([
      'labelSelector.other',
      'labelSelector.matchLabels.bad key!',
      'labelSelector.matchLabels.app',
      'labelSelector.matchExpressions[0].operator',
      'labelSelector.matchExpressions[1].values',
      'labelSelector.matchExpressions[2].values',
      'labelSelector.matchExpressions[3].key',
    ]);
  });

  it('bounds the lists as the CRD does', () => {
    const many = Array.from({ length: 17 }, (_, index) => ({ key: `k${index}`, operator: 'Exists' }));
    expect(errors({ ...minimal, labelSelector: { matchExpressions: many } })).toEqual([
      { field: 'labelSelector.matchExpressions', message: 'must list at most 16 items' },
    ]);
    const labels = Object.fromEntries(Array.from({ length: 17 }, (_, index) => [`k${index}`, 'v']));
    expect(errors({ ...minimal, labelSelector: { matchLabels: labels } })[0]?.field).toBe('labelSelector.matchLabels');
    const types = Array.from({ length: 33 }, (_, index) => ({ ...deployments, resource: `r${index}` }));
    expect(errors({ ...minimal, includedResources: types })[0]).toEqual({ field: 'includedResources', message: 'must list at most 32 items' });
  });

  it('names bad and repeated resource types', () => {
    expect(
      errors({ ...minimal, includedResources: [deployments, { ...deployments, kind: 'deployment' }, deployments, 'pods'] }).map((error) => error.field),
    ).toEqual(['includedResources[1].kind', 'includedResources[3]', 'includedResources[2]']);
  });

  it('refuses labels and types together for Trilio, accepts each alone', () => {
    expect(errors({ ...minimal, provider: 'trilio', labelSelector: { matchLabels: { app: 'a' } }, includedResources: [deployments] })).toEqual([
      { field: 'includedResources', message: expect.stringContaining('cannot be combined with labelSelector for provider trilio') },
    ]);
    valid({ ...minimal, provider: 'trilio', labelSelector: { matchLabels: { app: 'a' } } });
    valid({ ...minimal, provider: 'trilio', includedResources: [deployments] });
    valid({ ...minimal, provider: 'kasten', labelSelector: { matchLabels: { app: 'a' } }, includedResources: [deployments] });
  });

  it('a PUT replaces the subset (an omitted one restores everything again)', () => {
    const existing = inputToSpec(valid({ ...minimal, labelSelector: { matchLabels: { app: 'a' } } }));
    expect(specForUpdate(existing, valid(minimal)).backupSource.labelSelector).toBeUndefined();
    expect(specForUpdate(existing, valid({ ...minimal, includedResources: [deployments] })).backupSource.includedResources).toEqual([deployments]);
  });
});

describe('label syntax', () => {
  it.each([
    ['app', true],
    ['app.kubernetes.io/name', true],
    ['example.com/a_b.c-d', true],
    ['-app', false],
    ['Example.com/app', false],
    ['a/b/c', false],
    [`${'a'.repeat(64)}`, false],
    ['', false],
  ])('key %s: %s', (key, ok) => {
    expect(isLabelKey(key)).toBe(ok);
  });

  it.each([
    ['', true],
    ['a', true],
    ['v1.2_x-y', true],
    ['-a', false],
    ['a b', false],
    ['a'.repeat(64), false],
  ])('value %s: %s', (value, ok) => {
    expect(isLabelValue(value)).toBe(ok);
  });

  it('keeps only the values of In and NotIn', () => {
    expect(validateSubsetInput({ matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] }, undefined)).toEqual({
      subset: { labelSelector: { matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] } },
      errors: [],
    });
  });
});
