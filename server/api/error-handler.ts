// The one error handler: every failure of a request becomes an RFC 9457 problem (decision 0008).
// toProblemError() is the whole mapping and is pure, so it is unit-tested table by table; the
// middleware only writes the answer and logs what a 5xx hides from the caller.
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ValidateError, type FieldErrors } from '@tsoa/runtime';
import type { Logger } from 'pino';
import { KubeError } from '../kube/errors.js';
import { BackupToolUnavailableError } from './ports.js';
import { PROBLEM_CONTENT_TYPE, ProblemError, invalidRequest, type FieldProblem } from './problem.js';

/**
 * tsoa names body fields "body.x" (the parameter name); clients know them as "x". It names array
 * items "x.$1"; the API's own validation, and so every client, says "x[1]".
 */
function fieldName(key: string): string {
  return key.replace(/^(body|requestBody)\./, '').replace(/\.\$([0-9]+)/g, '[$1]');
}

/** tsoa's messages quote the field ("'days' is required"); ours put the field first. */
function fieldMessage(message: string, field: string): string {
  const quoted = `'${field}' `;
  return message.startsWith(quoted) ? message.slice(quoted.length) : message;
}

export function fieldProblemsOf(fields: FieldErrors): FieldProblem[] {
  return Object.entries(fields).map(([key, value]) => {
    const field = fieldName(key);
    return { field, message: fieldMessage(value.message, key) };
  });
}

interface BodyParserError {
  type: string;
  status?: number;
  limit?: number;
}

function isBodyParserError(error: unknown): error is BodyParserError {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { type?: unknown }).type === 'string' &&
    typeof (error as { status?: unknown }).status === 'number'
  );
}

function fromBodyParser(error: BodyParserError): ProblemError | undefined {
  switch (error.type) {
    case 'entity.parse.failed':
      return new ProblemError('malformed-body', 'The request body is not valid JSON.');
    case 'entity.too.large':
      return new ProblemError(
        'payload-too-large',
        `The request body exceeds the limit of ${error.limit ?? 'the server'} bytes.`,
      );
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ProblemError('unsupported-media-type', 'The request body must be UTF-8 encoded JSON.');
    case 'request.aborted':
    case 'request.size.invalid':
      return new ProblemError('malformed-body', 'The request body was incomplete.');
    default:
      return undefined;
  }
}

function fromKubeError(error: KubeError): ProblemError {
  switch (error.kind) {
    case 'NotFound':
      return new ProblemError('not-found', error.message);
    case 'AlreadyExists':
      return new ProblemError('already-exists', error.message);
    case 'Conflict':
      return new ProblemError('conflict', 'The object was modified concurrently; read it again and retry.');
    case 'Invalid': {
      const errors = error.causes.map((cause) => ({
        field: cause.field ?? '',
        message: cause.message ?? 'is invalid',
      }));
      return errors.length > 0
        ? invalidRequest(errors, `The Kubernetes API rejected the object: ${error.message}`)
        : new ProblemError('invalid-request', `The Kubernetes API rejected the object: ${error.message}`);
    }
    case 'Forbidden':
      // The server's own service account lacks a permission: an installation problem. The
      // apiserver's message (naming the account and the verb) goes to the log, not to the caller.
      return new ProblemError(
        'forbidden',
        "The Rehearsal server's service account is not allowed to perform this operation; see the server log.",
      );
    case 'Unavailable':
      return new ProblemError(
        'kubernetes-unavailable',
        'The Kubernetes API server is not reachable; retry later.',
      );
    default:
      return new ProblemError('internal-error', 'The server failed to process the request.');
  }
}

/** The problem for any thrown value. Unknown errors become a 500 that reveals nothing. */
export function toProblemError(error: unknown): ProblemError {
  if (error instanceof ProblemError) return error;
  if (error instanceof ValidateError) return invalidRequest(fieldProblemsOf(error.fields));
  if (error instanceof KubeError) return fromKubeError(error);
  if (error instanceof BackupToolUnavailableError) {
    return new ProblemError('backup-tool-unavailable', error.message);
  }
  if (isBodyParserError(error)) {
    const problem = fromBodyParser(error);
    if (problem) return problem;
  }
  return new ProblemError('internal-error', 'The server failed to process the request.');
}

/** The request path (no query string: it may carry nothing secret today, but it is noise). */
export function instanceOf(originalUrl: string): string {
  const query = originalUrl.indexOf('?');
  return query === -1 ? originalUrl : originalUrl.slice(0, query);
}

export function errorHandler(log: Logger): ErrorRequestHandler {
  return (error, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const problem = toProblemError(error);
    const instance = instanceOf(req.originalUrl);
    if (problem.status >= 500) {
      log.error({ err: error, method: req.method, path: instance, status: problem.status }, 'request failed');
    } else if (error instanceof KubeError && error.kind === 'Forbidden') {
      log.error(
        { method: req.method, path: instance, kubeMessage: error.message },
        'service account forbidden',
      );
    } else {
      log.debug(
        { method: req.method, path: instance, status: problem.status, detail: problem.detail },
        'request rejected',
      );
    }
    for (const [name, value] of Object.entries(problem.extras.headers ?? {})) res.setHeader(name, value);
    res
      .status(problem.status)
      .type(PROBLEM_CONTENT_TYPE)
      .send(JSON.stringify(problem.toProblem(instance)));
  };
}

/** Last in the chain: a path no route matched. */
export const noSuchRoute: RequestHandler = (req, _res, next) => {
  next(new ProblemError('no-such-route', `No route for ${req.method} ${instanceOf(req.originalUrl)}.`));
};
