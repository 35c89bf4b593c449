// The command palette (issue 30): Ctrl+K (⌘K) or "/" opens a search over the pages and every test
// the caller may list; arrows move, Enter opens, Escape closes. A modal <dialog> (the page behind
// is inert) with an ARIA combobox and listbox: focus stays on the search box, the active option is
// announced through aria-activedescendant, and Tab cycles inside the dialog only.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, describeError, unwrap } from '../api.js';
import { href, navigate, useLoad } from '../hooks.js';
import { moveActive, opensPalette, paletteItems, searchPalette } from '../palette.js';

function isTyping(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLElement &&
    (target.isContentEditable ||
      target instanceof HTMLInputElement ||
      target instanceof HTMLTextAreaElement ||
      target instanceof HTMLSelectElement)
  );
}

/** The top bar's search button and the palette it (or the shortcut) opens. */
export function CommandPalette({ pages }: { pages: readonly (readonly [string, string])[] }) {
  const [open, setOpen] = useState(false);
  const opener = useRef<Element | null>(null);
  useEffect(() => {
    const onKey = (event: KeyboardEvent): void => {
      if (event.defaultPrevented || !opensPalette(event, isTyping(event.target))) return;
      event.preventDefault(); // Ctrl+K would otherwise go to the browser's search bar
      if (!open) opener.current = document.activeElement;
      setOpen(true);
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [open]);
  const close = (navigated: boolean): void => {
    setOpen(false);
    // After a jump the old page is gone: focus the new one, as a skip link would.
    const target = navigated ? document.getElementById('main') : opener.current;
    if (target instanceof HTMLElement && target.isConnected) target.focus();
  };
  return (
    <>
      <button
        type="button"
        class="palette-open"
        aria-haspopup="dialog"
        aria-keyshortcuts="Control+K Meta+K /"
        onClick={(event) => ((opener.current = event.currentTarget), setOpen(true))}
      >
        Search <kbd>Ctrl K</kbd>
      </button>
      {open ? <PaletteDialog pages={pages} onClose={close} /> : null}
    </>
  );
}

function PaletteDialog({
  pages,
  onClose,
}: {
  pages: readonly (readonly [string, string])[];
  onClose: (navigated: boolean) => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const tests = useLoad(async () => unwrap(await api.GET('/api/v1/tests')), []);
  const items = useMemo(() => paletteItems(pages, tests.data ?? []), [pages, tests.data]);
  const results = useMemo(() => searchPalette(items, query), [items, query]);
  const current = results[Math.min(active, results.length - 1)];

  // Before the browser paints: keys typed right after the shortcut land in the search box.
  useLayoutEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    input.current?.focus();
  }, []);
  useEffect(() => {
    document.getElementById(current ? `palette-${current.id}` : '')?.scrollIntoView({ block: 'nearest' });
  }, [current?.id]);

  const go = (item = current): void => {
    if (!item) return;
    navigate(href(...item.route));
    onClose(true);
  };
  const onKeyDown = (event: KeyboardEvent): void => {
    // Arrows and Enter belong to the search box (Enter on Close closes).
    const inSearch = event.target === input.current;
    if (inSearch && (event.key === 'ArrowDown' || event.key === 'ArrowUp')) {
      event.preventDefault();
      setActive((a) =>
        moveActive(Math.min(a, results.length - 1), event.key === 'ArrowDown' ? 1 : -1, results.length),
      );
    } else if (inSearch && event.key === 'Enter') {
      event.preventDefault();
      go();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      onClose(false);
    } else if (event.key === 'Tab') {
      // The focus trap: Tab and Shift+Tab cycle through the dialog's own controls.
      const focusable = [...(dialog.current?.querySelectorAll<HTMLElement>('input, button') ?? [])];
      const at = focusable.indexOf(document.activeElement as HTMLElement);
      const next = focusable[moveActive(at, event.shiftKey ? -1 : 1, focusable.length)];
      event.preventDefault();
      next?.focus();
    }
  };
  const status = tests.error
    ? `Tests could not be listed (${describeError(tests.error).headline}); pages only.`
    : tests.loading && !tests.data
      ? 'Loading tests…'
      : `${results.length === 0 ? 'Nothing matches' : results.length === 1 ? '1 match' : `${results.length} matches`}.`;
  return (
    <dialog
      ref={dialog}
      class="palette"
      role="dialog"
      aria-modal="true"
      aria-labelledby="palette-title"
      onKeyDown={onKeyDown}
      onCancel={(event) => (event.preventDefault(), onClose(false))}
      // A click on the backdrop lands on the <dialog> itself.
      onClick={(event) => event.target === dialog.current && onClose(false)}
    >
      <div class="palette-body">
        <div class="palette-head">
          <h2 id="palette-title">Go to a test or page</h2>
          <button type="button" class="link" onClick={() => onClose(false)}>
            Close
          </button>
        </div>
        <input
          ref={input}
          type="text"
          role="combobox"
          aria-label="Search tests and pages"
          aria-expanded="true"
          aria-controls="palette-list"
          aria-autocomplete="list"
          aria-activedescendant={current ? `palette-${current.id}` : undefined}
          aria-describedby="palette-status palette-hint"
          autocomplete="off"
          spellcheck={false}
          placeholder="Test name, namespace, source namespace or page"
          value={query}
          onInput={(event) => (setQuery(event.currentTarget.value), setActive(0))}
        />
        <p id="palette-status" class="muted" aria-live="polite" data-testid="palette-status">
          {status}
        </p>
        <ul id="palette-list" role="listbox" aria-label="Tests and pages">
          {results.map((item, index) => (
            <li
              key={item.id}
              id={`palette-${item.id}`}
              role="option"
              aria-selected={item === current}
              data-kind={item.kind}
              onMouseMove={() => index !== active && setActive(index)}
              onClick={() => go(item)}
            >
              <span class="palette-label">{item.label}</span> <span class="muted">{item.detail}</span>
            </li>
          ))}
        </ul>
        <p id="palette-hint" class="muted palette-hint">
          ↑ ↓ move · Enter opens · Esc closes
        </p>
      </div>
    </dialog>
  );
}
