// The Reports page follows the API's pages by the continue token of its Link header: read back
// from the header the server writes (server/api/services/page-link.ts), direct and aggregated.
import { describe, expect, it } from '@jest/globals';
import { nextPageLink } from '../../../server/api/services/page-link.js';
import { encodeContinue } from '../../../server/api/services/report-pages.js';
import { nextToken } from '../../../web/src/paging.js';

describe('nextToken', () => {
  const token = encodeContinue({ completedAt: 1_790_000_000_000, key: 'team-a/shop-daily-4zcqk' });

  it.each([
    '/api/v1/reports?days=90&limit=50&result=fail',
    '/apis/api.rehearsal.dev/v1/reports?days=7&limit=50&continue=old&test=shop&namespace=team-a',
  ])('reads the token of the server-written Link of %s', (url) => {
    expect(nextToken(nextPageLink(url, token))).toBe(token);
  });

  it('finds rel="next" among other links, and nothing on the last page', () => {
    expect(nextToken(`</api/v1/reports?days=7>; rel="first", ${nextPageLink('/api/v1/reports?days=7', token)}`)).toBe(token);
    expect(nextToken('</api/v1/reports?days=7>; rel="first"')).toBeUndefined();
    expect(nextToken(null)).toBeUndefined();
    expect(nextToken('')).toBeUndefined();
  });
});
