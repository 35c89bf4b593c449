// The command palette's search (issue 30, web/src/palette.ts): pages and tests matched by name,
// namespace and source namespaces, best first; the keys that open it; moving through the options.
import { describe, expect, it } from '@jest/globals';
import { moveActive, opensPalette, paletteItems, searchPalette } from '../../../web/src/palette.js';

const PAGES = [
  ['overview', 'Overview'],
  ['tests', 'Tests'],
  ['reports', 'Reports'],
] as const;
const TESTS = [
  { name: 'shop-daily', namespace: 'team-a', sourceNamespaces: ['shop'], schedule: '0 2 * * *', timezone: 'Europe/Paris' },
  { name: 'ledger', namespace: 'team-b', sourceNamespaces: ['ledger', 'payments'], schedule: '', onBackup: true, everyNthBackup: 3 },
  { name: 'shop', namespace: 'team-b', sourceNamespaces: ['shop'], schedule: '0 9-17 * * 1-5' },
  { name: 'reports-db', namespace: 'team-c', sourceNamespaces: ['analytics'], schedule: '*/30 * * * *' },
];
const items = paletteItems(PAGES, TESTS);
const labels = (query: string): string[] => searchPalette(items, query).map((i) => `${i.kind}:${i.label}`);

describe('paletteItems', () => {
  it('lists the pages, then every test with its namespace, sources and schedule', () => {
    expect(items.map((i) => [i.id, i.route])).toEqual([
      ['page-overview', ['overview']],
      ['page-tests', ['tests']],
      ['page-reports', ['reports']],
      ['test-team-a-shop-daily', ['tests', 'team-a', 'shop-daily']],
      ['test-team-b-ledger', ['tests', 'team-b', 'ledger']],
      ['test-team-b-shop', ['tests', 'team-b', 'shop']],
      ['test-team-c-reports-db', ['tests', 'team-c', 'reports-db']],
    ]);
    expect(items[3]?.detail).toBe('team-a · restores shop · daily at 02:00 Europe/Paris');
    expect(items[4]?.detail).toBe('team-b · restores ledger, payments · every 3rd backup');
    expect(new Set(items.map((i) => i.id)).size).toBe(items.length);
  });
});

describe('searchPalette', () => {
  it('with no query gives everything, pages first, up to the limit', () => {
    expect(searchPalette(items, '  ')).toHaveLength(items.length);
    expect(searchPalette(items, '', 2).map((i) => i.label)).toEqual(['Overview', 'Tests']);
  });

  it('ranks an exact name first, then names that start with it, then names that hold it, then other fields', () => {
    expect(labels('shop')).toEqual(['test:shop', 'test:shop-daily']);
    expect(labels('SHOP')).toEqual(['test:shop', 'test:shop-daily']);
    expect(labels('reports')).toEqual(['page:Reports', 'test:reports-db']);
    expect(labels('ledg')).toEqual(['test:ledger']);
  });

  it('finds tests by namespace, namespace/name and source namespace', () => {
    expect(labels('team-b')).toEqual(['test:ledger', 'test:shop']);
    expect(labels('team-b/shop')).toEqual(['test:shop']);
    expect(labels('payments')).toEqual(['test:ledger']);
    expect(labels('analytics')).toEqual(['test:reports-db']);
  });

  it('needs every word of the query, in any order', () => {
    expect(labels('shop team-a')).toEqual(['test:shop-daily']);
    expect(labels('team-a shop')).toEqual(['test:shop-daily']);
    expect(labels('shop nowhere')).toEqual([]);
  });

  it('does not match on the schedule text or the detail line', () => {
    expect(labels('daily at')).toEqual([]);
  });
});

describe('opensPalette', () => {
  const press = (key: string, modifiers: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean }> = {}) => ({
    key,
    ctrlKey: false,
    metaKey: false,
    altKey: false,
    ...modifiers,
  });
  it('opens on Ctrl+K and ⌘K, even while typing', () => {
    expect(opensPalette(press('k', { ctrlKey: true }), false)).toBe(true);
    expect(opensPalette(press('K', { ctrlKey: true }), true)).toBe(true);
    expect(opensPalette(press('k', { metaKey: true }), false)).toBe(true);
  });
  it('opens on "/" only when not typing in a field', () => {
    expect(opensPalette(press('/'), false)).toBe(true);
    expect(opensPalette(press('/'), true)).toBe(false);
  });
  it('ignores other keys and combinations', () => {
    expect(opensPalette(press('k'), false)).toBe(false);
    expect(opensPalette(press('k', { ctrlKey: true, altKey: true }), false)).toBe(false);
    expect(opensPalette(press('/', { ctrlKey: true }), false)).toBe(false);
    expect(opensPalette(press('Enter'), false)).toBe(false);
  });
});

describe('moveActive', () => {
  it('moves and wraps round; -1 with no option', () => {
    expect(moveActive(0, 1, 3)).toBe(1);
    expect(moveActive(2, 1, 3)).toBe(0);
    expect(moveActive(0, -1, 3)).toBe(2);
    expect(moveActive(-1, 1, 2)).toBe(0);
    expect(moveActive(-1, -1, 2)).toBe(0);
    expect(moveActive(0, 1, 0)).toBe(-1);
  });
});
