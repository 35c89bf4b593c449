// The dashboard's words for API problems (web/src/problem-text.ts): headlines by problem type, then
// status, and missing permissions as kubectl names them; the coverage page shows 403 and 503 with them.
import { describe, expect, it } from '@jest/globals';
import { permissionText, problemHeadline } from '../../../web/src/problem-text.js';

describe('problemHeadline', () => {
  it('tells a missing backup tool from a server still starting, though both are 503', () => {
    expect(problemHeadline(503, { type: 'https://rehearsal.dev/problems/backup-tool-unavailable', title: 'Backup tool unavailable' })).toBe('The backup tool is not available');
    expect(problemHeadline(503, { type: 'https://rehearsal.dev/problems/not-ready', title: 'Not ready' })).toBe('The server is not ready');
  });
  it('falls back to the status, then the title, then the number', () => {
    expect(problemHeadline(403, { type: 'https://rehearsal.dev/problems/forbidden', title: 'Forbidden' })).toBe('Not allowed');
    expect(problemHeadline(418, { type: 'https://rehearsal.dev/problems/teapot', title: 'A teapot' })).toBe('A teapot');
    expect(problemHeadline(418)).toBe('Error 418');
  });
});

describe('permissionText', () => {
  it('names group, subresource and namespace when there are any', () => {
    expect(permissionText({ verb: 'list', group: 'apps', resource: 'deployments', namespace: 'shop' })).toBe('list deployments.apps in shop');
    expect(permissionText({ verb: 'list', group: '', resource: 'services', namespace: 'shop' })).toBe('list services in shop');
    expect(permissionText({ verb: 'update', group: 'rehearsal.dev', resource: 'restoretests', subresource: 'status' })).toBe('update restoretests.rehearsal.dev/status');
  });
});
