// Validates real HTTP answers against openapi/openapi.json: the status code must be documented
// for the operation, the media type must be the documented one (application/problem+json for
// every error), the body must match the schema (ajv), and documented required headers must be
// present. Also records which operations were exercised, so a test can insist on all of them.
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

interface MediaType {
  schema?: unknown;
}
interface ResponseObject {
  content?: Record<string, MediaType>;
  headers?: Record<string, { required?: boolean }>;
}
interface Operation {
  operationId: string;
  responses: Record<string, ResponseObject>;
}

export type OpenApiDocument = { paths: Record<string, Record<string, Operation>> } & Record<string, unknown>;

export function loadDocument(): OpenApiDocument {
  return JSON.parse(
    readFileSync(new URL('../../../openapi/openapi.json', import.meta.url), 'utf8'),
  ) as OpenApiDocument;
}

interface Route {
  template: string;
  method: string;
  pattern: RegExp;
  operation: Operation;
}

function pointer(...segments: string[]): string {
  return segments.map((segment) => segment.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
}

export interface ObservedResponse {
  method: string;
  url: string;
  status: number;
  contentType: string | null;
  headers: Headers;
  body: string;
}

export class ContractValidator {
  readonly failures: string[] = [];
  readonly exercised = new Map<string, Set<number>>();
  private readonly ajv: Ajv;
  private readonly routes: Route[] = [];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly document: OpenApiDocument) {
    this.ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(this.ajv);
    // tsoa's number formats carry no constraint JSON Schema could check.
    for (const format of ['double', 'float', 'int32', 'int64']) this.ajv.addFormat(format, true);
    this.ajv.addSchema(document as object, 'openapi');
    for (const [template, item] of Object.entries(document.paths)) {
      const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      for (const [method, operation] of Object.entries(item)) {
        this.routes.push({ template, method: method.toUpperCase(), pattern, operation });
      }
    }
    // Literal segments before templated ones: /tests/{name} must not swallow a longer literal path.
    this.routes.sort((a, b) => a.template.split('{').length - b.template.split('{').length);
  }

  get operationIds(): string[] {
    return this.routes.map((route) => route.operation.operationId);
  }

  find(method: string, pathname: string): Route | undefined {
    return this.routes.find((route) => route.method === method && route.pattern.test(pathname));
  }

  /** Problems with one answer ([] = conforms). Also records the failure list and coverage. */
  check(observed: ObservedResponse): string[] {
    const problems: string[] = [];
    const { pathname } = new URL(observed.url);
    const where = `${observed.method} ${pathname} → ${observed.status}`;
    const route = this.find(observed.method, pathname);
    if (!route) {
      problems.push(`${where}: no such operation in openapi.json`);
    } else {
      const statuses = this.exercised.get(route.operation.operationId) ?? new Set<number>();
      statuses.add(observed.status);
      this.exercised.set(route.operation.operationId, statuses);
      const response = route.operation.responses[String(observed.status)];
      if (!response) {
        problems.push(`${where}: status not documented for ${route.operation.operationId}`);
      } else {
        problems.push(...this.checkBody(route, response, observed, where));
        for (const [name, header] of Object.entries(response.headers ?? {})) {
          if (header.required && !observed.headers.has(name))
            problems.push(`${where}: header ${name} missing`);
        }
      }
    }
    if (observed.status >= 400 && observed.contentType?.split(';')[0] !== 'application/problem+json') {
      problems.push(`${where}: error answered as ${observed.contentType}, not application/problem+json`);
    }
    this.failures.push(...problems);
    return problems;
  }

  private checkBody(
    route: Route,
    response: ResponseObject,
    observed: ObservedResponse,
    where: string,
  ): string[] {
    const content = response.content;
    if (!content) {
      return observed.body === '' ? [] : [`${where}: body sent where none is documented`];
    }
    const mediaType = observed.contentType?.split(';')[0]?.trim() ?? '';
    if (!content[mediaType]) {
      return [
        `${where}: media type ${mediaType || '(none)'} not documented (${Object.keys(content).join(', ')})`,
      ];
    }
    const key = pointer(
      '#',
      'paths',
      route.template,
      route.method.toLowerCase(),
      'responses',
      String(observed.status),
      'content',
      mediaType,
      'schema',
    );
    const schema = (content[mediaType] as { schema?: { type?: string; format?: string } }).schema;
    if (schema?.type === 'string' && schema.format === 'binary') {
      // A file (the PDFs): the media type is the contract; the bytes are checked by the tests.
      return observed.body === '' ? [`${where}: empty ${mediaType} body`] : [];
    }
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.getSchema(`openapi${key}`);
      if (!validate) return [`${where}: no schema at ${key}`];
      this.validators.set(key, validate);
    }
    let body: unknown;
    try {
      body = JSON.parse(observed.body);
    } catch {
      return [`${where}: body is not JSON`];
    }
    if (validate(body)) return [];
    return (validate.errors ?? []).map(
      (error: ErrorObject) =>
        `${where}: body${error.instancePath} ${error.message ?? 'is invalid'} ${JSON.stringify(error.params)}`,
    );
  }

  /** A fetch that checks every answer it passes through. */
  fetch(inner: typeof fetch = fetch): (input: Request) => Promise<Response> {
    return async (input: Request) => {
      const method = input.method;
      const response = await inner(input);
      const body = await response.clone().text();
      this.check({
        method,
        url: input.url,
        status: response.status,
        contentType: response.headers.get('content-type'),
        headers: response.headers,
        body,
      });
      return response;
    };
  }
}
