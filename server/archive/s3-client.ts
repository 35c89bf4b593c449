// A small S3 client (AWS Signature Version 4 over fetch, path-style addressing) for the evidence
// archive: PUT, GET, DELETE and ListObjectsV2 are all it needs. The evidence anchors (issue 33) add
// what a write-once bucket needs: Object Lock retention on PUT, the bucket's Object Lock
// configuration, an object's retention, and every version of a key (under versioning an overwrite
// is a new version and a DELETE without a version id only a delete marker). Written here rather
// than taken from the AWS SDK, whose S3 client adds ~10 MB of production node_modules to the image
// for a handful of calls; it is tested against real S3 servers (s3s-fs; versitygw for Object Lock),
// never a mock. Errors name the operation, the key and the status, never the credentials.
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

export type RetentionMode = 'COMPLIANCE' | 'GOVERNANCE';

/**
 * An object version's Object Lock retention: until `retainUntil` the version cannot be deleted nor its
 * retention shortened, in COMPLIANCE mode by anyone, in GOVERNANCE mode by anyone without
 * s3:BypassGovernanceRetention.
 */
export interface ObjectRetention {
  mode: RetentionMode;
  retainUntil: Date;
}

/**
 * What we write: COMPLIANCE only. A GOVERNANCE retention yields to anyone holding
 * s3:BypassGovernanceRetention, which is no write-once guarantee.
 */
export interface PutRetention {
  mode: 'COMPLIANCE';
  retainUntil: Date;
}

/** The bucket's Object Lock configuration; a default retention applies to objects put without one. */
export interface ObjectLockConfiguration {
  enabled: boolean;
  mode?: RetentionMode;
  days?: number;
  years?: number;
}

/** One version of a key, or a delete marker (which has no bytes). */
export interface S3ObjectVersion {
  key: string;
  versionId: string;
  isLatest: boolean;
  deleteMarker: boolean;
  size: number;
}

const EMPTY_SHA256 = createHash('sha256').update('').digest('hex');

/** A ListObjectsV2 page holds at most 1,000 keys of at most 1,024 bytes each, plus their fields. */
export const MAX_LIST_PAGE_BYTES = 4 * 1024 * 1024;
/** An S3 error document is a few hundred bytes; only its <Code> is read. */
const MAX_ERROR_BODY_BYTES = 16 * 1024;
/** A retention or Object Lock configuration document is a few hundred bytes too. */
const MAX_SMALL_DOCUMENT_BYTES = 16 * 1024;
/** The subresources named in error messages (`S3 GET key ?retention answered 403 ...`). */
const SUBRESOURCES = ['object-lock', 'retention', 'versions'];

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

/** The text of the first <name> element in `xml`, unescaped, or undefined. */
function element(xml: string, name: string): string | undefined {
  const text = new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(xml)?.[1];
  return text === undefined ? undefined : xmlText(text);
}

function retentionMode(text: string | undefined, what: string, status: number): RetentionMode {
  if (text === 'COMPLIANCE' || text === 'GOVERNANCE') return text;
  throw new S3Error(`S3 ${what}: the answer names no retention mode (${JSON.stringify(text?.slice(0, 40))})`, status, 'Malformed');
}

function xmlText(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    // Go's encoding/xml (versitygw, MinIO) writes character references: &#34; for a quote.
    .replace(/&#(x[0-9a-fA-F]+|\d+);/g, (reference, code: string) => {
      const point = code.startsWith('x') ? Number.parseInt(code.slice(1), 16) : Number(code);
      return point <= 0x10ffff ? String.fromCodePoint(point) : reference;
    })
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

  /**
   * Stores the object and answers its version id (undefined when the bucket keeps no versions).
   * With `retention` the version is locked until then: the bucket must have Object Lock enabled,
   * and the request carries Content-MD5, which S3 requires of a PUT with a retention.
   */
  async putObject(key: string, body: Uint8Array, contentType = 'application/octet-stream', options: { retention?: PutRetention } = {}): Promise<string | undefined> {
    const headers: Record<string, string> = { 'content-type': contentType };
    if (options.retention) {
      headers['content-md5'] = createHash('md5').update(body).digest('base64');
      headers['x-amz-object-lock-mode'] = options.retention.mode;
      headers['x-amz-object-lock-retain-until-date'] = options.retention.retainUntil.toISOString();
    }
    const response = await this.request('PUT', key, {}, body, headers);
    await response.body?.cancel().catch(() => undefined);
    return response.headers.get('x-amz-version-id') ?? undefined;
  }

  /**
   * The object's bytes (one version's with `versionId`), or undefined when there is no such key or
   * its latest version is a delete marker; S3Error when it is over `maxBytes`.
   */
  async getObject(key: string, maxBytes: number, versionId?: string): Promise<Buffer | undefined> {
    const response = await this.request('GET', key, versionId ? { versionId } : {}, undefined, {}, [404]);
    if (response.status === 404) {
      await response.body?.cancel().catch(() => undefined);
      return undefined;
    }
    return boundedBody(response, maxBytes, `GET ${key}`);
  }

  /**
   * With `versionId`, deletes that version (Object Lock refuses while it is retained); without, in
   * a versioned bucket, puts a delete marker on top of the key's versions, which stay.
   */
  async deleteObject(key: string, versionId?: string): Promise<void> {
    const response = await this.request('DELETE', key, versionId ? { versionId } : {}, undefined, {}, [404]);
    await response.body?.cancel().catch(() => undefined);
  }

  /** The bucket's Object Lock configuration; `{ enabled: false }` when it has none. */
  async getObjectLockConfiguration(): Promise<ObjectLockConfiguration> {
    const query = { 'object-lock': '' };
    const response = await this.request('GET', undefined, query, undefined, {}, [404]);
    const xml = (await boundedBody(response, MAX_SMALL_DOCUMENT_BYTES, 'GET ?object-lock')).toString('utf8');
    if (response.status === 404) {
      // A missing bucket is a 404 too: only this code means "no Object Lock".
      if (element(xml, 'Code') === 'ObjectLockConfigurationNotFoundError') return { enabled: false };
      throw this.errorOf('GET', undefined, query, response.status, xml);
    }
    const configuration: ObjectLockConfiguration = { enabled: element(xml, 'ObjectLockEnabled') === 'Enabled' };
    const rule = element(xml, 'DefaultRetention');
    if (rule !== undefined) {
      configuration.mode = retentionMode(element(rule, 'Mode'), 'GET ?object-lock', response.status);
      const days = element(rule, 'Days');
      const years = element(rule, 'Years');
      if (days !== undefined) configuration.days = Number(days);
      if (years !== undefined) configuration.years = Number(years);
    }
    return configuration;
  }

  /**
   * The retention of the object's latest version (of one version with `versionId`), or undefined
   * when it has none; S3Error when there is no such key or version.
   */
  async getObjectRetention(key: string, versionId?: string): Promise<ObjectRetention | undefined> {
    const query: Record<string, string> = { retention: '', ...(versionId ? { versionId } : {}) };
    const what = `GET ${key} ?retention`;
    // "No retention" is NoSuchObjectLockConfiguration: 404 on AWS, 400 on versitygw.
    const response = await this.request('GET', key, query, undefined, {}, [400, 404]);
    const xml = (await boundedBody(response, MAX_SMALL_DOCUMENT_BYTES, what)).toString('utf8');
    if (!response.ok) {
      if (element(xml, 'Code') === 'NoSuchObjectLockConfiguration') return undefined;
      throw this.errorOf('GET', key, query, response.status, xml);
    }
    const retainUntil = new Date(element(xml, 'RetainUntilDate') ?? Number.NaN);
    if (Number.isNaN(retainUntil.getTime())) throw new S3Error(`S3 ${what}: the answer has no retain-until date`, response.status, 'Malformed');
    return { mode: retentionMode(element(xml, 'Mode'), what, response.status), retainUntil };
  }

  /**
   * Sets one version's retention. A COMPLIANCE retention may be extended and never shortened, by
   * anyone (S3 answers 403 AccessDenied).
   */
  async putObjectRetention(key: string, versionId: string, retention: PutRetention): Promise<void> {
    const body = Buffer.from(
      '<Retention xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
        `<Mode>${retention.mode}</Mode><RetainUntilDate>${retention.retainUntil.toISOString()}</RetainUntilDate></Retention>`,
      'utf8',
    );
    // S3 requires Content-MD5 (or an x-amz-checksum-*) on PutObjectRetention.
    const headers = { 'content-type': 'application/xml', 'content-md5': createHash('md5').update(body).digest('base64') };
    const response = await this.request('PUT', key, { retention: '', versionId }, body, headers);
    await response.body?.cancel().catch(() => undefined);
  }

  /**
   * Every version and delete marker of every key under the prefix (ListObjectVersions, followed
   * page by page; `pageSize` for tests), each once, grouped by key in key order. Within a key, in
   * the bucket's order, newest first on AWS; versitygw lists a page's delete markers before its
   * versions, so read the newest from `isLatest`, not from the order.
   */
  async listObjectVersions(prefix: string, pageSize?: number): Promise<S3ObjectVersion[]> {
    const versions: S3ObjectVersion[] = [];
    // versitygw 1.8.0 starts a page AT its version-id marker when that is a key's latest version
    // (S3 starts after it), so that version comes twice; a page of one would never move on.
    const seen = new Set<string>();
    let marker: { key: string; versionId: string } | undefined;
    for (;;) {
      const query: Record<string, string> = { versions: '', prefix };
      if (pageSize) query['max-keys'] = String(pageSize);
      if (marker) {
        query['key-marker'] = marker.key;
        query['version-id-marker'] = marker.versionId;
      }
      const response = await this.request('GET', undefined, query);
      const xml = (await boundedBody(response, MAX_LIST_PAGE_BYTES, `list versions ${prefix}`)).toString('utf8');
      for (const [, kind, entry] of xml.matchAll(/<(Version|DeleteMarker)>([\s\S]*?)<\/\1>/g)) {
        const key = element(entry!, 'Key');
        const versionId = element(entry!, 'VersionId');
        if (key === undefined || versionId === undefined || seen.has(`${key}\n${versionId}`)) continue;
        seen.add(`${key}\n${versionId}`);
        versions.push({
          key,
          versionId,
          isLatest: element(entry!, 'IsLatest') === 'true',
          deleteMarker: kind === 'DeleteMarker',
          size: Number(element(entry!, 'Size') ?? 0),
        });
      }
      if (!/<IsTruncated>true<\/IsTruncated>/.test(xml)) return versions.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      const next = { key: element(xml, 'NextKeyMarker') ?? '', versionId: element(xml, 'NextVersionIdMarker') ?? '' };
      // A truncated page that does not move the markers on would be listed forever.
      if (next.key === '' || (next.key === marker?.key && next.versionId === marker.versionId)) {
        throw new S3Error(`S3 list versions ${prefix}: a truncated page without new markers`, response.status, 'Malformed');
      }
      marker = next;
    }
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

  /** Protected, not private: a test helper creates its bucket through it (test/helpers/object-lock-store.ts). */
  protected async request(
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
    throw this.errorOf(method, key, query, response.status, text);
  }

  /** The error an answer is: names the operation, the key, the version and the status, nothing secret. */
  private errorOf(method: string, key: string | undefined, query: Record<string, string>, status: number, body: string): S3Error {
    const code = /<Code>([^<]*)<\/Code>/.exec(body)?.[1];
    const subresource = SUBRESOURCES.find((name) => name in query);
    const target = [
      key ?? `bucket ${this.location.bucket}`,
      ...(query.versionId ? [`version ${query.versionId}`] : []),
      ...(subresource ? [`?${subresource}`] : []),
    ].join(' ');
    return new S3Error(`S3 ${method} ${target} answered ${status}${code ? ` ${code}` : ''}`, status, code);
  }
}
