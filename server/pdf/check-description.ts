// A check in one line of words, from its configuration block: the test report PDF's check table
// (what an auditor reads to know what was verified). One case per check kind.
import type { HealthCheck } from '../domain/resources/resources.js';
import { plural } from './format.js';

/** One line describing what a check does, from its configuration block. */
export function describeCheck(check: HealthCheck): string {
  const selector = (s: Record<string, string> | undefined): string =>
    s && Object.keys(s).length > 0
      ? Object.entries(s)
          .map(([k, v]) => `${k}=${v}`)
          .join(',')
      : 'all pods';
  switch (check.kind) {
    case 'podsReady': {
      const c = check.podsReady ?? {};
      return `Pods ${selector(c.selector)}: ${c.minReady !== undefined ? `at least ${c.minReady} Ready` : 'every selected pod Ready'}.`;
    }
    case 'httpGet': {
      const c = check.httpGet;
      if (!c) return 'HTTP GET (configuration missing).';
      return `GET ${c.scheme ?? 'http'}://${c.service}:${c.port}${c.path ?? '/'} expects status ${c.expectedStatus ?? 200}${c.bodyMatch ? `; body matches /${c.bodyMatch}/` : ''}.`;
    }
    case 'tcpSocket': {
      const c = check.tcpSocket;
      return c
        ? `TCP connection to ${c.service}:${c.port} succeeds.`
        : 'TCP connect (configuration missing).';
    }
    case 'sqlQuery': {
      const c = check.sqlQuery;
      if (!c) return 'SQL query (configuration missing).';
      const port = c.port ?? (c.engine === 'postgres' ? 5432 : 3306);
      const expectation =
        c.expectedValue !== undefined
          ? `first value equals "${c.expectedValue}"`
          : `at least ${plural(c.expectedMinRows ?? 1, 'row')}`;
      return `${c.engine} ${c.service}:${port}, database ${c.database}, credentials from restored Secret ${c.credentialsSecret.name}; query: ${c.query}; expects ${expectation}.`;
    }
    case 'resourceExists': {
      const c = check.resourceExists;
      return c
        ? `${c.apiVersion} ${c.kind} "${c.name}" exists in the sandbox.`
        : 'Resource exists (configuration missing).';
    }
    case 'exec': {
      const c = check.exec;
      if (!c) return 'Exec (configuration missing).';
      return `Run ${JSON.stringify(c.command)} in pods ${selector(c.selector)}${c.container ? `, container ${c.container}` : ''}; expects exit code ${c.expectedExitCode ?? 0}.`;
    }
    case 'file': {
      const c = check.file;
      if (!c) return 'File (configuration missing).';
      if (c.exists === false) return `File ${c.path} on restored claim ${c.claim} does not exist.`;
      const expects = [
        ...(c.size !== undefined ? [`${plural(c.size, 'byte')}`] : []),
        ...(c.sha256 !== undefined ? [`SHA-256 ${c.sha256.slice(0, 12)}…`] : []),
        ...(c.contains !== undefined ? [`contains "${c.contains}"`] : []),
        ...(c.freshness ? [`newest data from its ${c.freshnessSource === 'content' ? 'content' : 'modification time'}`] : []),
      ];
      return `File ${c.path} on restored claim ${c.claim} exists${expects.length > 0 ? `; ${expects.join(', ')}` : ''}.`;
    }
  }
}
