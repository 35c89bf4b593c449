// Secrets out of the restored application's text (issue 30): every log line, event message and
// container message a diagnosis keeps passes through scrubLines/scrubText before it is stored.
// Applications print their configuration at start-up ("password=...", a database URL with its
// credentials, a bearer token in a request dump); a diagnosis is read by people who may not read
// the source namespace's Secrets. Patterns err on the side of hiding: a value after a secret-ish
// key is replaced whole, as are tokens recognisable by their form. What is hidden shows
// REDACTED, so a reader knows something was there. This is on top of redaction.ts, which hides all
// the application's text from readers without `get secrets` in the source namespaces.

export const REDACTED = '[redacted]';

// key=value, key: value, "key": "value" where the key names a secret. The value runs to the next
// blank, quote, comma, semicolon or ampersand (query strings), so "password=hunter2 user=bob"
// keeps user=bob. "auth" counts only as a word of its own (auth=, auth_token=), not in author=.
// The text is the restored application's: every pattern is linear in it. The match starts at the
// secret word (what precedes it, as in db.password, stays as it was) and the rest of the key name
// is bounded; unbounded runs before a fixed part made one long line cost minutes (quadratic).
const SECRET_KEY =
  /((?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|client[_-]?secret|credentials?|authorization|auth(?![a-z]))[A-Za-z0-9_.-]{0,64})(["']?[ \t]{0,16}[:=][ \t]{0,16}["']?)([^\s"',;&]+)/gi;
// Authorization headers and the like: Bearer/Basic/Token followed by the credential.
const AUTH_SCHEME = /\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{6,}/g;
// user:password@host in a URL (postgres://app:s3cret@db:5432/shop).
const URL_CREDENTIALS = /([a-z][a-z0-9+.-]{0,31}:\/\/[^\s:/@]{1,256}:)([^\s@/]{1,256})(@)/gi;
// Tokens recognisable by their form.
const TOKEN_FORMS: RegExp[] = [
  /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, // JWT (header.payload.signature)
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, // AWS access key id
  /\bgh[pousr]_[A-Za-z0-9]{20,}\b/g, // GitHub token
  /\bxox[abprs]-[A-Za-z0-9-]{10,}\b/g, // Slack token
  /\bglpat-[A-Za-z0-9_-]{20,}\b/g, // GitLab token
  /\bsk_(?:live|test)_[A-Za-z0-9]{16,}\b/g, // Stripe secret key
];
const PEM_BEGIN = /-----BEGIN [A-Z ]*PRIVATE KEY-----/;
const PEM_END = /-----END [A-Z ]*PRIVATE KEY-----/;

/** One line or message with its secrets replaced by REDACTED. */
export function scrubText(text: string): string {
  let result = text.replace(URL_CREDENTIALS, `$1${REDACTED}$3`);
  result = result.replace(AUTH_SCHEME, `$1 ${REDACTED}`);
  result = result.replace(SECRET_KEY, (_match, key: string, separator: string) => `${key}${separator}${REDACTED}`);
  for (const form of TOKEN_FORMS) result = result.replace(form, REDACTED);
  return result;
}

/**
 * The lines of one log, each scrubbed; the lines of a PEM private key (between its BEGIN and END
 * lines, which no single-line pattern recognises) are replaced whole.
 */
export function scrubLines(lines: readonly string[]): string[] {
  let inPrivateKey = false;
  return lines.map((line) => {
    if (PEM_BEGIN.test(line)) {
      inPrivateKey = !PEM_END.test(line);
      return REDACTED;
    }
    if (inPrivateKey) {
      if (PEM_END.test(line)) inPrivateKey = false;
      return REDACTED;
    }
    return scrubText(line);
  });
}
