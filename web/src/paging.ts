// Pages of a list the API pages (decision 0011): the next page is announced by a Link header.

/** The continue token of a `Link: <…continue=…>; rel="next"` header (RFC 8288), if any. */
export function nextToken(link: string | null | undefined): string | undefined {
  for (const part of (link ?? '').split(',')) {
    const match = /<([^>]*)>\s*;\s*rel="?next"?/.exec(part);
    if (!match) continue;
    return new URLSearchParams(match[1]!.split('?')[1] ?? '').get('continue') ?? undefined;
  }
  return undefined;
}
