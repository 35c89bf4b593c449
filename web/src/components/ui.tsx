// Shared building blocks: error panel, loading state, cards, badges, dialogs.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { describeError } from '../api.js';
import type { Loaded } from '../hooks.js';

export function ErrorPanel({ error, children }: { error: unknown; children?: ComponentChildren }) {
  const { headline, detail, problem } = describeError(error);
  return (
    <div class="panel error" role="alert" data-status={problem?.status}>
      <h2>{headline}</h2>
      <p>{detail}</p>
      {children}
    </div>
  );
}

/** Renders the error, a loading line, or the children with the data. */
export function Async<T>({
  state,
  children,
}: {
  state: Loaded<T>;
  children: (data: T) => ComponentChildren;
}) {
  if (state.error !== undefined) return <ErrorPanel error={state.error} />;
  if (state.data === undefined)
    return (
      <p class="muted" aria-busy="true">
        Loading…
      </p>
    );
  return <>{children(state.data)}</>;
}

export function Card({
  label,
  value,
  tone,
  testId,
}: {
  label: string;
  value: ComponentChildren;
  tone?: string;
  testId?: string;
}) {
  return (
    <div class="card">
      <div class="card-label">{label}</div>
      <div class={`card-value ${tone ?? ''}`} data-testid={testId}>
        {value}
      </div>
    </div>
  );
}

export function Badge({ tone, children }: { tone: string; children: ComponentChildren }) {
  return <span class={`badge ${tone}`}>{children}</span>;
}

export function PageHeader({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <header class="page-header">
      <h1>{title}</h1>
      <div class="actions">{children}</div>
    </header>
  );
}

/** A modal dialog (native <dialog>: focus trap and Escape come from the browser). */
export function Dialog({
  title,
  onClose,
  children,
}: {
  title: string;
  onClose: () => void;
  children: ComponentChildren;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  return (
    <dialog ref={ref} aria-label={title} onClose={onClose} onCancel={onClose}>
      <h2>{title}</h2>
      {children}
    </dialog>
  );
}

export function Segmented<T extends string | number>({
  label,
  options,
  value,
  onChange,
  format = String,
}: {
  label: string;
  options: readonly T[];
  value: T;
  onChange: (value: T) => void;
  format?: (value: T) => string;
}) {
  return (
    <div class="segmented" role="group" aria-label={label}>
      {options.map((option) => (
        <button
          type="button"
          aria-pressed={option === value}
          onClick={() => onChange(option)}
          key={String(option)}
        >
          {format(option)}
        </button>
      ))}
    </div>
  );
}

/**
 * Previous / next (nothing when everything fits on one page). With `pages` the count is known
 * (pages in the browser); with `hasNext` only whether another follows (pages from the API).
 */
export function Pager({
  label,
  page,
  pages,
  hasNext,
  onPage,
}: {
  label: string;
  page: number;
  pages?: number;
  hasNext?: boolean;
  onPage: (page: number) => void;
}) {
  const more = pages !== undefined ? page < pages - 1 : hasNext === true;
  if (page === 0 && !more) return null;
  return (
    <nav class="pager" aria-label={label}>
      <button type="button" disabled={page === 0} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span>
        Page {page + 1}
        {pages !== undefined ? ` of ${pages}` : ''}
      </span>
      <button type="button" disabled={!more} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}
