// 405 for a method a path does not have (decision 0011, RFC 9110 §15.5.6): the path's methods come
// from the OpenAPI document, so the answer and its Allow header can never disagree with the
// contract. Runs before the body checks (a body on an undeclared DELETE is still a 405, not a 400)
// and passes every method the path has on to the routes; a path the document does not know stays
// a 404.
import type { RequestHandler } from 'express';
import type { OpenApiDocument } from './openapi-document.js';
import { ProblemError } from './problem.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

interface PathMethods {
  pattern: RegExp;
  allow: string;
  methods: ReadonlySet<string>;
}

function pathPattern(template: string): RegExp {
  const escaped = template
    .split(/\{[^}]+\}/)
    .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
    .join('[^/]+');
  return new RegExp(`^${escaped}/?$`);
}

/** Each documented path with its Allow value (GET implies HEAD, as Express serves it). */
export function pathMethods(document: OpenApiDocument): PathMethods[] {
  return Object.entries(document.paths).map(([template, item]) => {
    const methods = METHODS.filter((method) => (item as Record<string, unknown>)[method] !== undefined).flatMap(
      (method) => (method === 'get' ? ['GET', 'HEAD'] : [method.toUpperCase()]),
    );
    return { pattern: pathPattern(template), allow: methods.join(', '), methods: new Set(methods) };
  });
}

export function methodNotAllowed(document: OpenApiDocument): RequestHandler {
  const paths = pathMethods(document);
  return (req, res, next) => {
    const known = paths.find((path) => path.pattern.test(req.path));
    if (!known || known.methods.has(req.method)) {
      next();
      return;
    }
    res.setHeader('Allow', known.allow);
    if (req.method === 'OPTIONS') {
      res.status(204).end();
      return;
    }
    next(new ProblemError('method-not-allowed', `${req.method} is not allowed on ${req.path}; use ${known.allow}.`));
  };
}
