// A small S3 client (AWS Signature Version 4 over fetch, path-style addressing) for the evidence
// archive: PUT, GET, DELETE and ListObjectsV2 are all it needs. Written here rather than taken from
// the AWS SDK, whose S3 client adds ~10 MB of production node_modules to the image for four calls;
// it is tested against a real S3 server (s3s-fs), never a mock. Errors name the operation, the key
// and the status, never the credentials.
//
// The bucket's answers are untrusted input (issue 26): redirects are never followed (a redirect
// would carry the signed headers and the session token to wherever it points), and every body is
// read to a bound and no further: an object to what its caller allows, a listing page to
// MAX_LIST_PAGE_BYTES, an error body to MAX_ERROR_BODY_BYTES.
import { createHash, createHmac } from 'node:crypto';

export interface S3Location {
  /** http(s)://host[:port], no path: the bucket goes into the path (path-style addressing). */
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export class S3Error extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'S3Error';
  }
}

export interface S3Object {
  key: string;
  size: number;
}

const EMPTY_SHA256 = createHash('sha256').update('').digest('hex');

/** A ListObjectsV2 page holds at most 1,000 keys of at most 1,024 bytes each, plus their fields. */
export const MAX_LIST_PAGE_BYTES = 4 * 1024 * 1024;
/** An S3 error document is a few hundred bytes; only its <Code> is read. */
const MAX_ERROR_BODY_BYTES = 16 * 1024;

/** The body of `response`, or S3Error once it is longer than `maxBytes` (the rest is not read). */
async function boundedBody(response: Response, maxBytes: number, what: string): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new S3Error(`S3 ${what}: the answer has ${declared} bytes, more than the ${maxBytes} accepted`, response.status, 'TooLarge');
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = response.body?.getReader();
  if (!reader) return Buffer.alloc(0);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new S3Error(`S3 ${what}: the answer is longer than the ${maxBytes} bytes accepted`, response.status, 'TooLarge');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

/** RFC 3986 encoding as SigV4 wants it (slashes kept in paths). */
function encode(text: string, keepSlash: boolean): string {
  const encoded = encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return keepSlash ? encoded.replace(/%2F/g, '/') : encoded;
}

function xmlText(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

export class S3Client {
  private readonly base: URL;

  constructor(
    private readonly location: S3Location,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.base = new URL(location.endpoint);
  }

  async putObject(key: string, body: Uint8Array, contentType = 'application/octet-stream'): Promise<void> {
    const response = await this.request('PUT', key, {}, body, { 'content-type': contentType });
    await response.body?.cancel().catch(() => undefined);
  }

  /** The object's bytes, or undefined when there is no such key; S3Error when it is over `maxBytes`. */
  async getObject(key: string, maxBytes: number): Promise<Buffer | undefined> {
    const response = await this.request('GET', key, {}, undefined, {}, [404]);
    if (response.status === 404) {
      await response.body?.cancel().catch(() => undefined);
      return undefined;
    }
    return boundedBody(response, maxBytes, `GET ${key}`);
  }

  async deleteObject(key: string): Promise<void> {
    const response = await this.request('DELETE', key, {}, undefined, {}, [404]);
    await response.body?.cancel().catch(() => undefined);
  }

  /** Every object under the prefix (ListObjectsV2, followed page by page; `pageSize` for tests). */
  async listObjects(prefix: string, pageSize?: number): Promise<S3Object[]> {
    const objects: S3Object[] = [];
    let token: string | undefined;
    do {
      const query: Record<string, string> = { 'list-type': '2', prefix };
      if (pageSize) query['max-keys'] = String(pageSize);
      if (token) query['continuation-token'] = token;
      const response = await this.request('GET', undefined, query);
      const xml = (await boundedBody(response, MAX_LIST_PAGE_BYTES, `list ${prefix}`)).toString('utf8');
      for (const [, contents] of xml.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)) {
        const key = /<Key>([\s\S]*?)<\/Key>/.exec(contents!)?.[1];
        const size = /<Size>(\d+)<\/Size>/.exec(contents!)?.[1];
        if (key !== undefined) objects.push({ key: xmlText(key), size: Number(size ?? 0) });
      }
      const truncated = /<IsTruncated>true<\/IsTruncated>/.test(xml);
      const next = /<NextContinuationToken>([\s\S]*?)<\/NextContinuationToken>/.exec(xml)?.[1];
      token = truncated && next ? xmlText(next) : undefined;
    } while (token);
    return objects;
  }

  private async request(
    method: string,
    key: string | undefined,
    query: Record<string, string>,
    body?: Uint8Array,
    extraHeaders: Record<string, string> = {},
    allowed: number[] = [],
  ): Promise<Response> {
    const { bucket, region, accessKeyId, secretAccessKey, sessionToken } = this.location;
    const basePath = this.base.pathname.replace(/\/$/, '');
    const path = `${basePath}/${encode(bucket, false)}${key === undefined ? '/' : `/${encode(key, true)}`}`;
    const canonicalQuery = Object.keys(query)
      .sort()
      .map((name) => `${encode(name, false)}=${encode(query[name]!, false)}`)
      .join('&');
    const stamp = this.now().toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
    const day = stamp.slice(0, 8);
    const payloadHash = body ? sha256Hex(body) : EMPTY_SHA256;
    const headers: Record<string, string> = {
      host: this.base.host,
      'x-amz-content-sha256': payloadHash,
      'x-amz-date': stamp,
      ...extraHeaders,
      ...(sessionToken ? { 'x-amz-security-token': sessionToken } : {}),
    };
    const names = Object.keys(headers).sort();
    const canonicalHeaders = names.map((name) => `${name}:${headers[name]!.trim()}\n`).join('');
    const signedHeaders = names.join(';');
    const canonicalRequest = [method, path, canonicalQuery, canonicalHeaders, signedHeaders, payloadHash].join('\n');
    const scope = `${day}/${region}/s3/aws4_request`;
    const stringToSign = ['AWS4-HMAC-SHA256', stamp, scope, sha256Hex(canonicalRequest)].join('\n');
    const signingKey = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, day), region), 's3'), 'aws4_request');
    const signature = createHmac('sha256', signingKey).update(stringToSign, 'utf8').digest('hex');
    headers.authorization = `AWS4-HMAC-SHA256 Credential=${accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
    delete headers.host; // fetch sets it from the URL (the same value)

    const url = `${this.base.origin}${path}${canonicalQuery ? `?${canonicalQuery}` : ''}`;
    // redirect "manual": a 3xx is an answer like any other (an error below), never followed.
    const response = await fetch(url, { method, headers, redirect: 'manual', ...(body ? { body: new Uint8Array(body) } : {}) });
    if (response.ok || allowed.includes(response.status)) return response;
    const text = await boundedBody(response, MAX_ERROR_BODY_BYTES, `${method} error`)
      .then((bytes) => bytes.toString('utf8'))
      .catch(() => '');
    const code = /<Code>([^<]*)<\/Code>/.exec(text)?.[1];
    throw new S3Error(
      `S3 ${method} ${key ?? `bucket ${bucket}`} answered ${response.status}${code ? ` ${code}` : ''}`,
      response.status,
      code,
    );
  }
}
