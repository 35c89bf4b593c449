// Reading a replica's /metrics (open with REHEARSAL_AUTH_MODE=none), apart from replicas.ts so
// that the pure parts importing it stay light.

/** /metrics of a replica, or undefined when it does not answer within 5 s. */
export async function scrape(replica: { url(path: string): string }): Promise<string | undefined> {
  try {
    const response = await fetch(replica.url('/metrics'), { signal: AbortSignal.timeout(5000) });
    return response.ok ? await response.text() : undefined;
  } catch {
    return undefined;
  }
}

/** The value of an unlabelled metric in a /metrics text. */
export function metricValue(text: string, name: string): number | undefined {
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return match ? Number(match[1]) : undefined;
}
