// The Rehearsal API as the commands use it: the typed openapi-fetch client over the connection,
// one method per operation. Every failure leaves here as one readable CliError (api-errors.ts
// says why it failed), so a command never sees a raw HTTP answer.
import { createRehearsalClient, isProblemDetails, type RehearsalApiClient } from '../../openapi/client.js';
import { explainFailedAnswer, LicenseRequiredError, unreachable, type ProblemDetails } from './api-errors.js';
import type { Connection } from './connect.js';
import { CliError } from './errors.js';
import type {
  Alert,
  ComplianceResponse,
  DailySummary,
  RestoreReport,
  ScheduleInfo,
  Summary,
  TestResponse,
  UpcomingTest,
} from './output/printers.js';
import type { components } from '../../openapi/client.js';

export type CreateTestInput = components['schemas']['CreateTestInput'];
export type FrameworkId = components['schemas']['FrameworkId'];
export type LicenseResponse = components['schemas']['LicenseResponse'];
export type EvidencePublicKey = components['schemas']['EvidencePublicKey'];
export type SandboxInfo = components['schemas']['SandboxInfo'];
export type TestDraftsResponse = components['schemas']['TestDraftsResponse'];
export const FRAMEWORKS: readonly FrameworkId[] = ['soc2', 'iso27001', 'hipaa', 'dora', 'pcidss'];

export interface TriggerOutcome {
  test: TestResponse;
  /** started: the engine took the request; pending: not yet (the request stays recorded). */
  state: 'started' | 'pending';
  /** The trigger-request value, as recorded on the RestoreTest. */
  request: string;
}

export interface ReportQuery {
  test?: string;
  namespace?: string;
  days?: number;
  latest?: boolean;
}

/**
 * Namespaces a list answer left out because the caller may not list there (issue 30): how many,
 * and which when the server may tell this caller (who may list namespaces).
 */
export interface OmittedNamespaces {
  count: number;
  names: string[];
}

/** Told about omitted namespaces, once per list. */
export type OnOmitted = (omitted: OmittedNamespaces) => void;

/** The Rehearsal-Omitted-Namespaces headers of an answer; undefined when nothing was left out. */
export function omittedNamespacesOf(response: Response): OmittedNamespaces | undefined {
  const count = Number(response.headers.get('Rehearsal-Omitted-Namespaces') ?? '0');
  if (!Number.isInteger(count) || count <= 0) return undefined;
  const names = (response.headers.get('Rehearsal-Omitted-Namespace-Names') ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  return { count, names };
}

interface Outcome<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

export class RehearsalApi {
  private readonly client: RehearsalApiClient;

  constructor(
    readonly connection: Connection,
    private readonly timeoutMs: number,
  ) {
    this.client = createRehearsalClient({ baseUrl: connection.baseUrl, fetch: connection.fetch });
  }

  /** The tests of `namespace`, else of every namespace the caller may list (onOmitted hears of the rest). */
  async listTests(namespace?: string, onOmitted?: OnOmitted): Promise<TestResponse[]> {
    const { data, response } = await this.send('GET', () =>
      this.client.GET('/api/v1/tests', { params: { query: namespace === undefined ? {} : { namespace } } }),
    );
    const omitted = omittedNamespacesOf(response);
    if (omitted && onOmitted) onOmitted(omitted);
    return required(data, response);
  }

  async getTest(name: string, namespace?: string): Promise<TestResponse> {
    return this.data('GET', () => this.client.GET('/api/v1/tests/{name}', { params: { path: { name }, query: { namespace } } }));
  }

  async createTest(body: CreateTestInput): Promise<TestResponse> {
    return this.data('POST', () => this.client.POST('/api/v1/tests', { body }));
  }

  async replaceTest(name: string, namespace: string | undefined, body: CreateTestInput): Promise<TestResponse> {
    return this.data('PUT', () =>
      this.client.PUT('/api/v1/tests/{name}', { params: { path: { name }, query: { namespace } }, body }),
    );
  }

  async deleteTest(name: string, namespace?: string): Promise<void> {
    await this.send('DELETE', () =>
      this.client.DELETE('/api/v1/tests/{name}', { params: { path: { name }, query: { namespace } } }),
    );
  }

  async triggerTest(name: string, namespace?: string): Promise<TriggerOutcome> {
    const { data, response } = await this.send('POST', () =>
      this.client.POST('/api/v1/tests/{name}/trigger', { params: { path: { name }, query: { namespace } } }),
    );
    const state = response.headers.get('Rehearsal-Trigger-State') === 'pending' ? 'pending' : 'started';
    return { test: required(data, response), state, request: response.headers.get('Rehearsal-Trigger-Request') ?? '' };
  }

  /**
   * Every report the query selects: the API answers in pages (decision 0011) and names the next
   * one in its Link header (rel="next"). The plugin takes the `continue` token from that link and
   * asks again through the same typed call, so the request goes the way of the connection (direct,
   * aggregated API or service proxy) whatever path the server saw.
   */
  async listReports(query: ReportQuery, onOmitted?: OnOmitted): Promise<RestoreReport[]> {
    const reports: RestoreReport[] = [];
    const seen = new Set<string>();
    let token: string | undefined;
    for (;;) {
      const pageQuery = token === undefined ? query : { ...query, continue: token };
      const { data, response } = await this.send('GET', () =>
        this.client.GET('/api/v1/reports', { params: { query: pageQuery } }),
      );
      reports.push(...required(data, response));
      const omitted = token === undefined ? omittedNamespacesOf(response) : undefined;
      if (omitted && onOmitted) onOmitted(omitted);
      token = nextPageToken(response.headers.get('link'));
      if (token === undefined) return reports;
      if (seen.has(token)) throw new CliError('the API named the same page of reports twice');
      seen.add(token);
    }
  }

  async summary(): Promise<Summary> {
    return this.data('GET', () => this.client.GET('/api/v1/summary'));
  }

  async daily(days?: number): Promise<DailySummary[]> {
    return this.data('GET', () => this.client.GET('/api/v1/summary/daily', { params: { query: { days } } }));
  }

  async alerts(hours?: number): Promise<Alert[]> {
    return this.data('GET', () => this.client.GET('/api/v1/alerts', { params: { query: { hours } } }));
  }

  async upcoming(): Promise<UpcomingTest[]> {
    return this.data('GET', () => this.client.GET('/api/v1/upcoming'));
  }

  async schedules(): Promise<ScheduleInfo[]> {
    return this.data('GET', () => this.client.GET('/api/v1/schedules'));
  }

  /** Sandbox namespaces (administrators: administer restoretests cluster-wide). */
  async sandboxes(orphaned: boolean): Promise<SandboxInfo[]> {
    return this.data('GET', () => this.client.GET('/api/v1/sandboxes', { params: { query: orphaned ? { orphaned } : {} } }));
  }

  /** Removes one orphaned sandbox, only if it still has the UID the list showed. */
  async removeOrphanedSandbox(name: string, uid: string): Promise<void> {
    await this.send('DELETE', () =>
      this.client.DELETE('/api/v1/sandboxes/{name}', { params: { path: { name }, query: { uid } } }),
    );
  }

  async diagnosis(name: string, namespace: string | undefined, run: string | undefined): Promise<components['schemas']['RunDiagnosis']> {
    return this.data('GET', () =>
      this.client.GET('/api/v1/tests/{name}/diagnosis', { params: { path: { name }, query: { namespace, run } } }),
    );
  }

  /** Drafted tests (issue 32): of the named source namespaces, else of every untested backed-up one. */
  async draftTests(sourceNamespaces: readonly string[], namespace: string | undefined): Promise<TestDraftsResponse> {
    return this.data('GET', () =>
      this.client.GET('/api/v1/test-drafts', {
        params: { query: { namespace, yaml: true, ...(sourceNamespaces.length > 0 ? { sourceNamespace: [...sourceNamespaces] } : {}) } },
      }),
    );
  }

  /** Creates the server's draft of one source namespace, under createTest's permission rule. */
  async createDraftedTest(sourceNamespace: string, namespace: string | undefined): Promise<TestResponse> {
    return this.data('POST', () =>
      this.client.POST('/api/v1/test-drafts/{sourceNamespace}', { params: { path: { sourceNamespace }, query: { namespace } } }),
    );
  }

  async coverage(): Promise<components['schemas']['CoverageResponse']> {
    return this.data('GET', () => this.client.GET('/api/v1/coverage'));
  }

  async compliance(framework: FrameworkId, period: number): Promise<ComplianceResponse> {
    return this.data('GET', () => this.client.GET('/api/v1/compliance', { params: { query: { framework, period } } }));
  }

  async license(): Promise<LicenseResponse> {
    return this.data('GET', () => this.client.GET('/api/v1/license'));
  }

  async evidenceKeys(): Promise<EvidencePublicKey[]> {
    return this.data('GET', () => this.client.GET('/api/v1/evidence/keys'));
  }

  /**
   * A binary answer (the PDFs) at `path` (with its query): the bytes on 2xx, else the error the
   * API's problem+json (or the proxy's Status) describes, like every other call.
   */
  async download(path: string, query: Record<string, string | number | undefined>): Promise<Buffer> {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
    const search = params.toString();
    const { data } = await this.send<Buffer>('GET', async () => {
      const response = await this.connection.fetch(
        new Request(`${this.connection.baseUrl}${path}${search ? `?${search}` : ''}`, { headers: { accept: 'application/pdf, application/problem+json' } }),
      );
      if (response.ok) return { data: Buffer.from(await response.arrayBuffer()), response };
      const body = jsonOrText(await response.text());
      if (response.status === 402 && isProblemDetails(body)) throw new LicenseRequiredError((body as ProblemDetails).detail);
      return { error: body, response };
    });
    if (!data) throw new CliError(`the API answered without a body`);
    return data;
  }

  /** The server's version: info.version of its OpenAPI document (there is no version endpoint). */
  async serverVersion(): Promise<string> {
    const { data } = await this.send<{ info?: { version?: unknown } }>('GET', async () => {
      const response = await this.connection.fetch(new Request(`${this.connection.baseUrl}/openapi.json`));
      const body = jsonOrText(await response.text());
      return response.ok ? { data: body as { info?: { version?: unknown } }, response } : { error: body, response };
    });
    const version = data?.info?.version;
    if (typeof version !== 'string') throw new CliError(`${this.connection.target} sent an OpenAPI document without info.version`);
    return version;
  }

  private async data<T>(method: string, run: () => Promise<Outcome<T>>): Promise<T> {
    const { data, response } = await this.send(method, run);
    return required(data, response);
  }

  private async send<T>(method: string, run: () => Promise<Outcome<T>>): Promise<{ data?: T; response: Response }> {
    let outcome: Outcome<T>;
    try {
      outcome = await run();
    } catch (error) {
      if (error instanceof CliError) throw error;
      throw unreachable(this.connection, error, this.timeoutMs);
    }
    if (!outcome.response.ok) {
      throw await explainFailedAnswer(outcome.response.status, outcome.error, this.connection, method, outcome.response.url);
    }
    return { data: outcome.data, response: outcome.response };
  }
}

/** The `continue` token of a Link header's rel="next" target (RFC 8288), if any. */
export function nextPageToken(link: string | null): string | undefined {
  if (!link) return undefined;
  for (const part of link.split(',')) {
    const match = /^\s*<([^>]*)>\s*;(.*)$/.exec(part);
    if (!match || !/(^|;)\s*rel="?next"?\s*(;|$)/.test(match[2]!)) continue;
    const query = match[1]!.split('?')[1] ?? '';
    return new URLSearchParams(query).get('continue') ?? undefined;
  }
  return undefined;
}

function required<T>(data: T | undefined, response: Response): T {
  if (data === undefined) throw new CliError(`the API answered ${response.status} without a body`);
  return data;
}

/** A body parsed as JSON, or the text itself when it is not JSON (the error messages quote it). */
function jsonOrText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
