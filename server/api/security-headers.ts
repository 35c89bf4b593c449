// Security headers on every answer (issue 26): no page of Rehearsal may be framed (clickjacking a
// "Run now" or "Delete"), no answer sniffed into another type, no URL (which may carry a namespace
// and a test name) sent on as a Referer, and the browser runs only the scripts Rehearsal serves.
//
//  - API answers, problems, metrics, PDFs: nothing may load at all (default-src 'none').
//  - The dashboard: its own files; the one inline script of index.html (the theme, applied before
//    the first paint) by its SHA-256, computed from the built file, so the policy follows the build.
//    Preact sets style properties through the CSSOM, which CSP does not restrict.
//  - Swagger UI (/docs): its own files, its inline <style> and the data: images it draws with.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { RequestHandler } from 'express';

const NOTHING = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** The headers every answer gets, with the CSP that loads nothing. */
export const BASELINE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy': NOTHING,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
});

export const securityHeaders: RequestHandler = (_req, res, next) => {
  for (const [name, value] of Object.entries(BASELINE_HEADERS)) res.setHeader(name, value);
  next();
};

/** "'sha256-...'" of every inline <script> of an HTML text. */
export function inlineScriptHashes(html: string): string[] {
  return [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi)].map(
    (match) => `'sha256-${createHash('sha256').update(match[1]!, 'utf8').digest('base64')}'`,
  );
}

export function dashboardPolicy(indexHtml: string | undefined): string {
  const scripts = ["'self'", ...(indexHtml ? inlineScriptHashes(indexHtml) : [])].join(' ');
  return [
    "default-src 'none'",
    `script-src ${scripts}`,
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "manifest-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

export const SWAGGER_UI_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** Sets `policy` as the CSP of what the next handlers answer. */
export function contentSecurityPolicy(policy: string): RequestHandler {
  return (_req, res, next) => {
    res.setHeader('Content-Security-Policy', policy);
    next();
  };
}

/** The dashboard's policy for a built directory (its index.html read once). */
export function dashboardPolicyOf(directory: string | undefined): string {
  if (!directory) return dashboardPolicy(undefined);
  try {
    return dashboardPolicy(readFileSync(`${directory}/index.html`, 'utf8'));
  } catch {
    return dashboardPolicy(undefined);
  }
}
