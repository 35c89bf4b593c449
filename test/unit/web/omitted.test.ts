// The dashboard's note on namespaces a list left out (issue 30), read from the headers the server
// writes (server/api/auth/namespace-scope.ts).
import { describe, expect, it } from '@jest/globals';
import { OMITTED_NAMESPACES_HEADER, OMITTED_NAMESPACE_NAMES_HEADER } from '../../../server/api/auth/namespace-scope.js';
import { omittedNote } from '../../../web/src/omitted.js';

describe('omittedNote', () => {
  it('counts, and names when the server named them', () => {
    expect(omittedNote(new Headers({ [OMITTED_NAMESPACES_HEADER]: '2' }))).toBe(
      'Showing the namespaces you may read: 2 namespaces left out.',
    );
    expect(omittedNote(new Headers({ [OMITTED_NAMESPACES_HEADER]: '1', [OMITTED_NAMESPACE_NAMES_HEADER]: 'team-b' }))).toBe(
      'Showing the namespaces you may read: 1 namespace (team-b) left out.',
    );
  });

  it('says nothing when nothing was left out', () => {
    expect(omittedNote(new Headers())).toBe('');
    expect(omittedNote(new Headers({ [OMITTED_NAMESPACES_HEADER]: 'x' }))).toBe('');
  });
});
