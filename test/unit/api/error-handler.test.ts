// The one mapping from failures to RFC 9457 problems (decision 0008): table-driven over every kind
// of error the API can meet, and the middleware's output (status, media type, headers, no leaks).
import { describe, expect, it, jest } from '@jest/globals';
import { ValidateError } from '@tsoa/runtime';
import pino from 'pino';
import type { Request, Response } from 'express';
import {
  errorHandler,
  fieldProblemsOf,
  instanceOf,
  toProblemError,
} from '../../../server/api/error-handler.js';
import { BackupToolUnavailableError } from '../../../server/api/ports.js';
import {
  PROBLEM_TYPES,
  ProblemError,
  describePermission,
  invalidRequest,
} from '../../../server/api/problem.js';
import { KubeError, type KubeErrorKind } from '../../../server/kube/errors.js';

function bodyParserError(type: string, status: number, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(`body-parser: ${type}`), { type, status, expose: true, ...extra });
}

describe('toProblemError', () => {
  it.each<[string, unknown, number, string]>([
    ['a ProblemError unchanged', new ProblemError('run-in-progress', 'busy'), 409, 'run-in-progress'],
    [
      'tsoa validation',
      new ValidateError({ days: { message: 'must be an integer', value: 'x' } }, ''),
      400,
      'invalid-request',
    ],
    ['malformed JSON', bodyParserError('entity.parse.failed', 400), 400, 'malformed-body'],
    [
      'a body over the limit',
      bodyParserError('entity.too.large', 413, { limit: 65536 }),
      413,
      'payload-too-large',
    ],
    ['an unsupported charset', bodyParserError('charset.unsupported', 415), 415, 'unsupported-media-type'],
    ['an unsupported encoding', bodyParserError('encoding.unsupported', 415), 415, 'unsupported-media-type'],
    ['an aborted body', bodyParserError('request.aborted', 400), 400, 'malformed-body'],
    [
      'the backup tool missing',
      new BackupToolUnavailableError('Velero is not installed'),
      503,
      'backup-tool-unavailable',
    ],
    ['an unknown error', new Error('secret connection string'), 500, 'internal-error'],
    ['a thrown string', 'boom', 500, 'internal-error'],
    ['an unknown body-parser type', bodyParserError('stream.encoding.set', 500), 500, 'internal-error'],
  ])('maps %s', (_name, error, status, slug) => {
    const problem = toProblemError(error);
    expect([problem.status, problem.slug]).toEqual([status, slug]);
  });

  it.each<[KubeErrorKind, number, string]>([
    ['NotFound', 404, 'not-found'],
    ['AlreadyExists', 409, 'already-exists'],
    ['Conflict', 409, 'conflict'],
    ['Invalid', 400, 'invalid-request'],
    ['Forbidden', 403, 'forbidden'],
    ['Unavailable', 503, 'kubernetes-unavailable'],
    ['Unauthorized', 500, 'internal-error'],
    ['Gone', 500, 'internal-error'],
    ['Other', 500, 'internal-error'],
  ])('maps KubeError %s to %i %s', (kind, status, slug) => {
    const problem = toProblemError(
      new KubeError(kind, 0, 'apiserver says: system:serviceaccount:rehearsal-system:rehearsal'),
    );
    expect([problem.status, problem.slug]).toEqual([status, slug]);
    if (kind !== 'NotFound' && kind !== 'AlreadyExists' && kind !== 'Invalid') {
      expect(problem.detail).not.toContain('serviceaccount');
    }
  });

  it('lists the causes of an Invalid answer as field errors', () => {
    const problem = toProblemError(
      new KubeError('Invalid', 422, 'RestoreTest "x" is invalid', [
        { field: 'spec.historyLimit', message: 'must be <= 1000' },
        { message: 'something without a field' },
      ]),
    );
    expect(problem.toProblem('/api/v1/tests').errors).toEqual([
      { field: 'spec.historyLimit', message: 'must be <= 1000' },
      { field: '', message: 'something without a field' },
    ]);
  });
});

describe('fieldProblemsOf', () => {
  it('drops the body. prefix and the quoted field name of tsoa messages', () => {
    expect(
      fieldProblemsOf({
        'body.name': { message: "'body.name' is required" },
        days: { message: "'days' is required" },
        latest: { message: 'invalid boolean value', value: 'maybe' },
        'requestBody.x': { message: 'excess' },
      }),
    ).toEqual([
      { field: 'name', message: 'is required' },
      { field: 'days', message: 'is required' },
      { field: 'latest', message: 'invalid boolean value' },
      { field: 'x', message: 'excess' },
    ]);
  });

  it('names array items as the API does, x[1], not as tsoa does, x.$1', () => {
    expect(
      fieldProblemsOf({
        'sourceNamespace.$1': { message: "'sourceNamespace.$1' must be an RFC 1123 label" },
        'body.a.$0.b.$12': { message: 'is required' },
      }),
    ).toEqual([
      { field: 'sourceNamespace[1]', message: 'must be an RFC 1123 label' },
      { field: 'a[0].b[12]', message: 'is required' },
    ]);
  });
});

describe('problem helpers', () => {
  it('invalidRequest summarises one or several fields', () => {
    expect(invalidRequest([{ field: 'cron', message: 'is required' }]).detail).toBe('cron is required');
    expect(
      invalidRequest([
        { field: 'cron', message: 'is required' },
        { field: 'name', message: 'is required' },
      ]).detail,
    ).toBe('2 fields are invalid: cron, name');
  });

  it('describes permissions the way kubectl does', () => {
    expect(describePermission({ verb: 'list', group: 'rehearsal.dev', resource: 'restorereports' })).toBe(
      'list restorereports.rehearsal.dev cluster-wide',
    );
    expect(
      describePermission({ verb: 'get', group: '', resource: 'secrets', namespace: 'a', name: 'b' }),
    ).toBe('get secrets "b" in namespace "a"');
  });

  it('has a title and a matching status for every problem type', () => {
    for (const [slug, { status, title }] of Object.entries(PROBLEM_TYPES)) {
      const problem = new ProblemError(slug as keyof typeof PROBLEM_TYPES, 'x').toProblem('/p');
      expect(problem).toEqual({
        type: `https://rehearsal.dev/problems/${slug}`,
        title,
        status,
        detail: 'x',
        instance: '/p',
      });
    }
  });

  it('instanceOf drops the query string', () => {
    expect(instanceOf('/api/v1/reports?test=a&days=3')).toBe('/api/v1/reports');
    expect(instanceOf('/api/v1/tests')).toBe('/api/v1/tests');
  });
});

describe('errorHandler middleware', () => {
  function run(error: unknown, headersSent = false) {
    const sent: { status?: number; type?: string; body?: string; headers: Record<string, string> } = {
      headers: {},
    };
    const res = {
      headersSent,
      setHeader: (name: string, value: string) => {
        sent.headers[name] = value;
      },
      status(code: number) {
        sent.status = code;
        return this;
      },
      type(value: string) {
        sent.type = value;
        return this;
      },
      send(body: string) {
        sent.body = body;
        return this;
      },
    } as unknown as Response;
    const lines: Record<string, unknown>[] = [];
    const log = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const next = jest.fn();
    errorHandler(log)(error, { method: 'POST', originalUrl: '/api/v1/tests?x=1' } as Request, res, next);
    return { sent, lines, next };
  }

  it('writes application/problem+json with the problem and its headers', () => {
    const { sent } = run(
      new ProblemError('unauthenticated', 'send a token', {
        headers: { 'WWW-Authenticate': 'Bearer realm="rehearsal"' },
      }),
    );
    expect(sent.status).toBe(401);
    expect(sent.type).toBe('application/problem+json');
    expect(sent.headers).toEqual({ 'WWW-Authenticate': 'Bearer realm="rehearsal"' });
    expect(JSON.parse(sent.body!)).toEqual({
      type: 'https://rehearsal.dev/problems/unauthenticated',
      title: 'Authentication required',
      status: 401,
      detail: 'send a token',
      instance: '/api/v1/tests',
    });
  });

  it('logs a 500 with the error but tells the caller nothing of it', () => {
    const { sent, lines } = run(new Error('password=hunter2 at db.internal:5432'));
    expect(sent.status).toBe(500);
    expect(sent.body).not.toContain('hunter2');
    expect(sent.body).not.toContain('db.internal');
    const logged = lines.find((line) => line.msg === 'request failed')!;
    expect(JSON.stringify(logged)).toContain('hunter2');
  });

  it('logs the apiserver message of a Forbidden answer (the service account lacks RBAC)', () => {
    const { sent, lines } = run(new KubeError('Forbidden', 403, 'cannot create restoretests in team-a'));
    expect(sent.status).toBe(403);
    expect(lines.some((line) => line.kubeMessage === 'cannot create restoretests in team-a')).toBe(true);
  });

  it('hands over to Express when the answer has already started', () => {
    const { sent, next } = run(new Error('late'), true);
    expect(sent.status).toBeUndefined();
    expect(next).toHaveBeenCalled();
  });
});
