// The note on namespaces a page's lists left out (issue 30, web/src/omitted.ts). Mounted with each
// page (keyed like it), so a note never outlives the page it belongs to.
import { useEffect, useState } from 'preact/hooks';
import { onOmitted } from '../omitted.js';

export function OmittedNote() {
  const [note, setNote] = useState('');
  useEffect(() => onOmitted(setNote), []);
  return note ? (
    <p class="muted" role="note" data-testid="omitted-namespaces">
      {note}
    </p>
  ) : null;
}
