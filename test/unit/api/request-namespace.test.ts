import { describe, expect, it } from '@jest/globals';
import { resolveRequestNamespace } from '../../../server/api/auth/request-namespace.js';

const resolve = (method: string, routePath: string, query: Record<string, unknown>, body?: unknown) =>
  resolveRequestNamespace({ method, routePath, query, body }, 'rehearsal-system');

describe('resolveRequestNamespace (one namespace per request)', () => {
  it.each([
    ['the query namespace', 'GET', '/api/v1/tests/:name', { namespace: 'team-a' }, undefined, 'team-a'],
    ['the server namespace without a query', 'GET', '/api/v1/tests/:name', {}, undefined, 'rehearsal-system'],
    ['never a GET body', 'GET', '/api/v1/tests/:name', {}, { namespace: 'victim' }, 'rehearsal-system'],
    ['never a DELETE body', 'DELETE', '/api/v1/tests/:name', { namespace: 'mine' }, { namespace: 'victim' }, 'mine'],
    ['never a PUT body', 'PUT', '/api/v1/tests/:name', {}, { namespace: 'victim' }, 'rehearsal-system'],
    ['the query over a create body', 'POST', '/api/v1/tests', { namespace: 'mine' }, { namespace: 'victim' }, 'mine'],
    ['a create body without a query', 'POST', '/api/v1/tests', {}, { namespace: 'team-b' }, 'team-b'],
    ['the server namespace for a create body without one', 'POST', '/api/v1/tests', {}, { name: 'x' }, 'rehearsal-system'],
    ['not a non-string body namespace', 'POST', '/api/v1/tests', {}, { namespace: 7 }, 'rehearsal-system'],
    ['not a trigger body', 'POST', '/api/v1/tests/:name/trigger', {}, { namespace: 'victim' }, 'rehearsal-system'],
  ])('%s', (_name, method, route, query, body, expected) => {
    expect(resolve(method, route, query, body)).toBe(expected);
  });
});
