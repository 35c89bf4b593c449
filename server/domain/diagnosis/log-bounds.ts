// The size of a diagnosis's logs (issue 30). A diagnosis is stored gzip-compressed in one
// ConfigMap (server/triage/diagnosis-store.ts) and served whole; a test may ask for 1,000 lines
// per container, so the logs are bounded twice: per container log (the newest lines that fit)
// and per run (logs in the order they were read, each cut to what is left). A log that lost lines
// says how many (omittedLines) and that it was truncated; readers print that as a marker line.
// Lines are scrubbed of secrets before they are counted, so a bound never keeps a secret's tail.
import type { ContainerLog } from './observation.js';
import { scrubLines } from './secret-scrub.js';

/** Bytes (UTF-8) of log lines kept per container log. */
export const MAX_LOG_BYTES_PER_CONTAINER = 16 * 1024;
/** Bytes (UTF-8) of log lines kept per run, all containers together. */
export const MAX_LOG_BYTES_PER_RUN = 64 * 1024;
/** A longer line is cut (a minified JSON blob must not take a container's whole budget). */
export const MAX_LINE_LENGTH = 1000;

const encoder = new TextEncoder();

function lineBytes(line: string): number {
  return encoder.encode(line).length + 1;
}

function clip(line: string): string {
  return line.length > MAX_LINE_LENGTH ? `${line.slice(0, MAX_LINE_LENGTH - 1)}…` : line;
}

/** The newest lines of `lines` whose bytes (each with its newline) fit in `budget`. */
function newestWithin(lines: readonly string[], budget: number): string[] {
  let used = 0;
  let first = lines.length;
  while (first > 0) {
    const bytes = lineBytes(lines[first - 1]!);
    if (used + bytes > budget) break;
    used += bytes;
    first -= 1;
  }
  return lines.slice(first);
}

/**
 * The logs as a diagnosis keeps them: the last `maxLines` lines of each, scrubbed, clipped, and
 * within both byte bounds.
 */
export function boundLogs(
  logs: readonly ContainerLog[],
  maxLines: number,
  limits: { perContainer: number; perRun: number } = { perContainer: MAX_LOG_BYTES_PER_CONTAINER, perRun: MAX_LOG_BYTES_PER_RUN },
): ContainerLog[] {
  let left = limits.perRun;
  return logs.map((log) => {
    // Lines beyond maxLines are what the test asked not to keep; lines the byte bounds drop are
    // counted, so the reader knows the log goes further back.
    const tail = scrubLines(log.lines.slice(-maxLines)).map(clip);
    const kept = newestWithin(tail, Math.min(limits.perContainer, left));
    left -= kept.reduce((sum, line) => sum + lineBytes(line), 0);
    const omitted = tail.length - kept.length + (log.omittedLines ?? 0);
    const cut = omitted > 0 || log.truncated === true;
    return {
      ...log,
      lines: kept,
      ...(omitted > 0 ? { omittedLines: omitted } : {}),
      ...(cut ? { truncated: true } : {}),
    };
  });
}
