// The Link header of a paged list (RFC 8288): the URL the caller used (through the aggregation
// layer too, where originalUrl is /apis/...), with its query kept and `continue` replaced.

export function nextPageLink(originalUrl: string, token: string): string {
  const [path, query = ''] = originalUrl.split('?', 2) as [string, string?];
  const parameters = new URLSearchParams(query);
  parameters.set('continue', token);
  return `<${path}?${parameters.toString()}>; rel="next"`;
}
