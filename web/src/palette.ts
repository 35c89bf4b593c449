// The command palette's search (issue 30; components/command-palette.tsx): the dashboard's pages
// and every test the caller may list, matched by name, namespace and source namespaces. Pure, so
// the ranking is unit-tested; the component only draws it.
import { describeSchedule, type ScheduleFields } from '../../protocol/schedule-text.js';

export interface PaletteItem {
  /** Unique among the items; also the option's DOM id suffix. */
  id: string;
  kind: 'page' | 'test';
  label: string;
  /** A second line: the namespace, sources and schedule of a test; "Page" for a page. */
  detail: string;
  /** The hash route's parts (href(...route)). */
  route: string[];
  /** Lower-case text the words are looked for in. */
  haystack: string;
}

export interface PaletteTest extends ScheduleFields {
  name: string;
  namespace: string;
  sourceNamespaces: string[];
}

/** Items for the pages ([route, label] as the navigation lists them) and then the tests. */
export function paletteItems(
  pages: readonly (readonly [string, string])[],
  tests: readonly PaletteTest[],
): PaletteItem[] {
  return [
    ...pages.map(([page, label]): PaletteItem => ({
      id: `page-${page}`,
      kind: 'page',
      label,
      detail: 'Page',
      route: [page],
      haystack: `${label} ${page}`.toLowerCase(),
    })),
    ...tests.map((test): PaletteItem => {
      const schedule = describeSchedule(test);
      const sources = test.sourceNamespaces.join(', ');
      return {
        id: `test-${test.namespace}-${test.name}`,
        kind: 'test',
        label: test.name,
        detail: [test.namespace, sources && `restores ${sources}`, schedule].filter(Boolean).join(' · '),
        route: ['tests', test.namespace, test.name],
        haystack:
          `${test.name} ${test.namespace} ${test.namespace}/${test.name} ${test.sourceNamespaces.join(' ')}`.toLowerCase(),
      };
    }),
  ];
}

/** 0 = the label is the query, 1 = starts with it, 2 = contains it, 3 = only the other fields match. */
function rank(item: PaletteItem, query: string): number {
  const label = item.label.toLowerCase();
  return label === query ? 0 : label.startsWith(query) ? 1 : label.includes(query) ? 2 : 3;
}

/**
 * The items whose text holds every word of the query (any case), best first: by how the label
 * matches, pages before tests, then by label. At most `limit`; with no query the first `limit`.
 */
export function searchPalette(items: readonly PaletteItem[], query: string, limit = 50): PaletteItem[] {
  const needle = query.trim().toLowerCase();
  if (!needle) return items.slice(0, limit);
  const words = needle.split(/\s+/);
  return items
    .filter((item) => words.every((word) => item.haystack.includes(word)))
    .map((item) => ({ item, rank: rank(item, needle) }))
    .sort(
      (a, b) =>
        a.rank - b.rank ||
        (a.item.kind === b.item.kind ? 0 : a.item.kind === 'page' ? -1 : 1) ||
        a.item.label.localeCompare(b.item.label) ||
        a.item.detail.localeCompare(b.item.detail),
    )
    .slice(0, limit)
    .map(({ item }) => item);
}

export interface KeyPress {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
}

/** Ctrl+K (⌘K on a Mac) anywhere, or "/" when the user is not typing in a field. */
export function opensPalette(press: KeyPress, typing: boolean): boolean {
  if ((press.ctrlKey || press.metaKey) && !press.altKey && press.key.toLowerCase() === 'k') return true;
  return press.key === '/' && !press.ctrlKey && !press.metaKey && !press.altKey && !typing;
}

/** The option after moving `by` from `active` among `count`, wrapping round; -1 with none. */
export function moveActive(active: number, by: number, count: number): number {
  if (count === 0) return -1;
  return (((active + by) % count) + count) % count;
}
