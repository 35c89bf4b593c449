// Request bodies: JSON only, at most 64 KiB (a CreateTestInput is a few hundred bytes; the limit
// keeps a misbehaving client from making the server parse megabytes), and CreateTestInput
// validated by the domain before tsoa sees it, so one 400 lists every offending field with the
// domain's messages (tsoa alone would stop at the structural errors).
import express, { type RequestHandler } from 'express';
import { requestNamespaceOf } from './auth/request-namespace.js';
import { apiContextOf } from './context.js';
import { ProblemError, invalidRequest } from './problem.js';

export const BODY_LIMIT_BYTES = 64 * 1024;
const JSON_TYPES = ['application/json', 'application/*+json'];

export const jsonBody: RequestHandler = express.json({
  limit: BODY_LIMIT_BYTES,
  type: JSON_TYPES,
  strict: true,
});

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** A body that is not JSON is refused with 415 instead of being ignored. */
export const requireJsonWhenBody: RequestHandler = (req, _res, next) => {
  if (hasBody(req.headers) && !req.is(JSON_TYPES)) {
    next(
      new ProblemError(
        'unsupported-media-type',
        `Send the body as application/json (got ${req.headers['content-type'] ?? 'no content type'}).`,
      ),
    );
    return;
  }
  next();
};

const BODILESS_METHODS = new Set(['GET', 'HEAD', 'DELETE']);

/**
 * GET, HEAD and DELETE take no body (decision 0009): a body there can only be an attempt to make
 * something read it (e.g. a namespace) that the permission check did not see. 400, not ignored.
 */
export const refuseBodyOnBodilessMethods: RequestHandler = (req, _res, next) => {
  if (BODILESS_METHODS.has(req.method) && hasBody(req.headers)) {
    next(invalidRequest([{ field: 'body', message: `must be empty: ${req.method} takes no request body` }]));
    return;
  }
  next();
};

/**
 * @Middlewares for POST /tests and PUT /tests/{name}. On success, fields set to null (which the
 * domain reads as "omitted") are dropped so tsoa's structural check agrees with the domain.
 */
export const validateTestBody: RequestHandler = (req, _res, next) => {
  try {
    const { tests } = apiContextOf(req);
    const name = typeof req.params.name === 'string' ? req.params.name : undefined;
    tests.checkBody(req.body, { ...(name === undefined ? {} : { name }), namespace: requestNamespaceOf(req) });
    const body = req.body as Record<string, unknown>;
    for (const key of Object.keys(body)) if (body[key] === null) delete body[key];
    next();
  } catch (error) {
    next(error);
  }
};
