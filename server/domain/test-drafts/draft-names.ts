// Names for drafted tests and checks: RFC 1123 labels of at most 63 characters whatever the
// namespace, workload and Service names are. A name that would be longer keeps its beginning and
// ends in a short hash of the whole, so two long names that share a beginning stay apart.
import { MAX_LABEL_LENGTH } from '../run/sandbox-names.js';

/** FNV-1a, 32 bits, as 6 base-36 characters: stable across runs and machines, no I/O. */
export function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(36).padStart(7, '0').slice(-6);
}

function sanitize(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/**
 * `parts` joined by "-" as an RFC 1123 label; over `max` characters, the head is cut and
 * "-<hash>" of the full name appended. The last part (a role such as "restore" or "tcp") is kept.
 */
export function labelName(parts: readonly (string | number)[], max: number = MAX_LABEL_LENGTH): string {
  const cleaned = parts.map((part) => sanitize(String(part))).filter((part) => part !== '');
  const full = cleaned.join('-') || 'x';
  if (full.length <= max) return full;
  const hash = shortHash(full);
  const tail = cleaned.length > 1 ? `-${cleaned[cleaned.length - 1]!}` : '';
  const tailKept = tail.length + hash.length + 2 <= max ? tail : '';
  const headRoom = max - hash.length - 1 - tailKept.length;
  const head = (cleaned.length > 1 && tailKept ? cleaned.slice(0, -1).join('-') : full).slice(0, headRoom).replace(/-+$/, '');
  return `${head}-${hash}${tailKept}`;
}

/** `name`, or `name-2`, `name-3` ... (still at most 63) when `taken` has it already; records it. */
export function uniqueName(name: string, taken: Set<string>): string {
  let candidate = name;
  for (let index = 2; taken.has(candidate); index += 1) {
    const suffix = `-${index}`;
    candidate = `${name.slice(0, MAX_LABEL_LENGTH - suffix.length).replace(/-+$/, '')}${suffix}`;
  }
  taken.add(candidate);
  return candidate;
}
