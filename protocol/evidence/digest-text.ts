// Digests in messages: "sha256:" and the first 12 hex digits, enough to tell reports apart in a
// verification problem without printing 71 characters. Its own module because the chain verifier
// (report-chain.ts), the anchor check (evidence-anchor.ts) and the archive's segment checks all
// print digests, and the plugin prints the same messages as the server.

/** sha256:<first 12 hex>, for messages. */
export function short(digest: string): string {
  return digest.startsWith('sha256:') ? `sha256:${digest.slice(7, 19)}` : digest.slice(0, 19);
}
