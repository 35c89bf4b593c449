// Digests in messages: "sha256:" and the first 12 hex digits, enough to tell reports apart in a
// verification problem without printing 71 characters. Its own module because the chain verifier
// (evidence.ts) and the anchor check (evidence-anchor.ts) both print digests.

/** sha256:<first 12 hex>, for messages. */
export function short(digest: string): string {
  return digest.startsWith('sha256:') ? `sha256:${digest.slice(7, 19)}` : digest.slice(0, 19);
}
