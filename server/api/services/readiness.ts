// Read endpoints answer from the informer caches. Before the first list has completed, an empty
// cache would look like "no tests, no runs": wrong evidence. They answer 503 until it is ready.
import type { ApiCache } from '../ports.js';
import { ProblemError } from '../problem.js';

export function requireSynced(cache: Pick<ApiCache, 'synced'>): void {
  if (!cache.synced) {
    throw new ProblemError('not-ready', 'The server is still loading its caches; retry in a few seconds.', {
      headers: { 'Retry-After': '5' },
    });
  }
}
