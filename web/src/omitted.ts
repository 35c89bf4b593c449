// Issue 30: a list answer names in headers the namespaces it left out because the caller may not
// list there. Every answer passes through noteOmitted (api.ts); OmittedNote
// (components/omitted-note.tsx) shows one short note while any list of the page left something out.

const listeners = new Set<(note: string) => void>();

/** The note for one answer's headers, or '' when it left nothing out. */
export function omittedNote(headers: Headers): string {
  const count = Number(headers.get('Rehearsal-Omitted-Namespaces'));
  if (!(count > 0)) return '';
  const names = headers.get('Rehearsal-Omitted-Namespace-Names');
  return `Showing the namespaces you may read: ${count === 1 ? '1 namespace' : `${count} namespaces`}${names ? ` (${names})` : ''} left out.`;
}

export function noteOmitted(response: Response): void {
  const note = omittedNote(response.headers);
  if (note) for (const listener of listeners) listener(note);
}

/** Hears every note until the returned function is called. */
export function onOmitted(listener: (note: string) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
