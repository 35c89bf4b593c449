// The dashboard's static files (web/dist, built by `npm run build:web`), served at / on the HTTP
// port and, through aggregation.ts, at /apis/api.rehearsal.dev/v1/dashboard/ (decision 0010).
// Hashed files (app-<hash>.js/.css) never change under their name: cached for a year, immutable.
// index.html names the current hashes, so it is revalidated on every load (no-cache). The files
// are public like /docs: the data they show comes from the API, which authorizes every call.
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type RequestHandler } from 'express';
import { ProblemError } from './problem.js';
import { dashboardPolicyOf } from './security-headers.js';

// Next to the sources (tsx, Jest) or next to the compiled output (dist/server/api).
const CANDIDATES = ['../../web/dist', '../../../web/dist'];
export const HASHED_ASSET = /^app-[\w-]+\.(?:js|css)$/;

export function dashboardDirectory(): string | undefined {
  for (const candidate of CANDIDATES) {
    const path = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(`${path}/index.html`)) return path;
  }
  return undefined;
}

/** Serves the built dashboard; answers / with a problem naming the build step when there is none. */
export function dashboardAssets(directory: string | undefined): RequestHandler {
  if (!directory) {
    return (req, _res, next) => {
      if ((req.method === 'GET' || req.method === 'HEAD') && req.path === '/') {
        next(new ProblemError('no-such-route', 'The dashboard is not built: run `npm run build:web`.'));
        return;
      }
      next();
    };
  }
  // Its own CSP (security-headers.ts): the built index.html's inline script by hash.
  const policy = dashboardPolicyOf(directory);
  const files = express.static(directory, {
    index: 'index.html',
    redirect: false,
    fallthrough: true,
    setHeaders(res, path) {
      res.setHeader('Cache-Control', HASHED_ASSET.test(basename(path)) ? 'public, max-age=31536000, immutable' : 'no-cache');
      res.setHeader('Content-Security-Policy', policy);
    },
  });
  // API calls skip the file lookup: express.static stats every path it is given on the thread pool,
  // which cost each API request one more turn of the event loop (issue 17: under a running
  // compliance evaluation, each turn also carries one of its slices).
  return (req, res, next) => {
    if (req.path.startsWith('/api/')) {
      next();
      return;
    }
    files(req, res, next);
  };
}
