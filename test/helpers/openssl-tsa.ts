// A real RFC 3161 timestamp authority for tests: OpenSSL's `openssl ts -reply` behind a tiny
// node:http server on 127.0.0.1, one openssl process per request. In a temp dir it makes a CA and
// two TSA certificates issued by it (an RSA and an EC P-256 key, extendedKeyUsage critical
// timeStamping), plus a certificate without that usage (openssl refuses to sign time-stamps with it;
// tests re-sign a token with it through `openssl cms`). Paths besides the two TSAs answer the ways
// a broken or hostile authority would: an HTTP error, garbage, an oversize body, a replay.
import { execFile, execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export type TsaKeyType = 'rsa' | 'ec';

/** The policy openssl's TSA grants by default; another one it also accepts. */
export const TSA_DEFAULT_POLICY = '1.2.3.4.1';
export const TSA_OTHER_POLICY = '1.2.3.4.2';

export interface OpensslTsa {
  dir: string;
  /** The CA every certificate here is issued by (PEM file and parsed). */
  caFile: string;
  ca: X509Certificate;
  /** POST a TimeStampReq here: `/rsa` or `/ec` sign with that key. */
  url(key: TsaKeyType): URL;
  /** Misbehaving endpoints: HTTP 500, truncated DER, a 1 MiB body (declared, or streamed without a length), the first answer `/rsa` gave, no answer at all. */
  brokenUrl(kind: 'http-error' | 'garbage' | 'oversize' | 'oversize-stream' | 'replay' | 'silent'): URL;
  /** Every TimeStampResp served by `/rsa` and `/ec`, oldest first (to cross-check with `openssl ts -verify`). */
  served: Buffer[];
  /** A certificate without extendedKeyUsage timeStamping, issued by the same CA, and its key. */
  noTimestampingCertFile: string;
  noTimestampingKeyFile: string;
  stop(): Promise<void>;
}

// openssl req needs a config with a distinguished_name section even when -subj gives the name.
const CA_EXTENSIONS = `[req]
distinguished_name = dn
[dn]
[ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
`;

const TSA_EXTENSIONS = `[tsa]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, nonRepudiation
extendedKeyUsage = critical, timeStamping
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[plain]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
`;

function tsaSection(dir: string, key: TsaKeyType): string {
  return `[tsa_${key}]
dir = ${dir}
serial = $dir/serial-${key}
crypto_device = builtin
signer_cert = $dir/tsa-${key}.pem
signer_key = $dir/tsa-${key}.key
signer_digest = sha256
default_policy = ${TSA_DEFAULT_POLICY}
other_policies = ${TSA_OTHER_POLICY}
digests = sha256
accuracy = secs:1
ordering = no
tsa_name = yes
ess_cert_id_chain = no
ess_cert_id_alg = sha256
`;
}

/** Creates the PKI and starts the server. `name` tells two authorities' CAs apart. */
export async function startOpensslTsa(name = 'Rehearsal Test'): Promise<OpensslTsa> {
  const dir = mkdtempSync(path.join(tmpdir(), 'rehearsal-tsa-'));
  try {
    return await createPkiAndServe(dir, name);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

async function createPkiAndServe(dir: string, name: string): Promise<OpensslTsa> {
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  writeFileSync(path.join(dir, 'extensions.cnf'), CA_EXTENSIONS + TSA_EXTENSIONS);
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-subj', `/O=${name}/CN=${name} TSA CA`,
    '-days', '2', '-config', 'extensions.cnf', '-extensions', 'ca');
  const issue = (file: string, newKey: string[], subject: string, extensions: string, serial: string) => {
    openssl('req', '-new', ...newKey, '-nodes', '-keyout', `${file}.key`, '-out', `${file}.csr`, '-subj', subject, '-config', 'extensions.cnf');
    openssl('x509', '-req', '-in', `${file}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-set_serial', serial, '-days', '1',
      '-sha256', '-extfile', 'extensions.cnf', '-extensions', extensions, '-out', `${file}.pem`);
  };
  issue('tsa-rsa', ['-newkey', 'rsa:2048'], `/O=${name}/CN=${name} TSA RSA`, 'tsa', '0x1001');
  issue('tsa-ec', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'], `/O=${name}/CN=${name} TSA EC`, 'tsa', '0x1002');
  issue('plain', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'], `/O=${name}/CN=${name} not a TSA`, 'plain', '0x1003');
  writeFileSync(path.join(dir, 'serial-rsa'), '01\n');
  writeFileSync(path.join(dir, 'serial-ec'), '01\n');
  writeFileSync(path.join(dir, 'tsa.cnf'), `[tsa]\ndefault_tsa = tsa_rsa\n${tsaSection(dir, 'rsa')}${tsaSection(dir, 'ec')}`);

  const served: Buffer[] = [];
  let requests = 0;
  const reply = async (key: TsaKeyType, query: Buffer): Promise<Buffer> => {
    const id = ++requests;
    const queryFile = path.join(dir, `query-${id}.tsq`);
    const replyFile = path.join(dir, `reply-${id}.tsr`);
    writeFileSync(queryFile, query);
    await run('openssl', ['ts', '-reply', '-queryfile', queryFile, '-config', path.join(dir, 'tsa.cnf'), '-section', `tsa_${key}`, '-out', replyFile]);
    const answer = readFileSync(replyFile);
    served.push(answer);
    return answer;
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const send = (status: number, body: Buffer, contentType = 'application/timestamp-reply') => {
        res.writeHead(status, { 'content-type': contentType, 'content-length': body.length });
        res.end(body);
      };
      const route = req.url ?? '';
      if (req.method !== 'POST') return send(405, Buffer.from('POST only'), 'text/plain');
      if (route === '/rsa' || route === '/ec') {
        reply(route.slice(1) as TsaKeyType, Buffer.concat(chunks)).then(
          (answer) => send(200, answer),
          (error: Error) => send(500, Buffer.from(error.message), 'text/plain'),
        );
        return;
      }
      if (route === '/http-error') return send(503, Buffer.from('the authority is down'), 'text/plain');
      if (route === '/garbage') return send(200, Buffer.from('30820400deadbeef', 'hex'));
      if (route === '/oversize') return send(200, Buffer.alloc(1024 * 1024, 0x30));
      if (route === '/oversize-stream') {
        res.writeHead(200, { 'content-type': 'application/timestamp-reply' });
        for (let i = 0; i < 64; i++) res.write(Buffer.alloc(16 * 1024, 0x30));
        res.end();
        return;
      }
      if (route === '/replay' && served[0]) return send(200, served[0]);
      if (route === '/silent') return; // stop() closes the connection
      return send(404, Buffer.from('no such route'), 'text/plain');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    dir,
    caFile: path.join(dir, 'ca.pem'),
    ca: new X509Certificate(readFileSync(path.join(dir, 'ca.pem'))),
    url: (key) => new URL(`/${key}`, base),
    brokenUrl: (kind) => new URL(`/${kind}`, base),
    served,
    noTimestampingCertFile: path.join(dir, 'plain.pem'),
    noTimestampingKeyFile: path.join(dir, 'plain.key'),
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `openssl ts -verify` as an auditor runs it: exit status 0 and "Verification: OK", else the output. */
export async function opensslVerifies(args: string[]): Promise<{ ok: boolean; output: string }> {
  try {
    const { stdout, stderr } = await run('openssl', ['ts', '-verify', ...args]);
    return { ok: stdout.includes('Verification: OK'), output: stdout + stderr };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    return { ok: false, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

/**
 * Signs a TSTInfo as a CMS time-stamp token with the given certificate and key: what a TSA whose
 * certificate is not a TSA's would send, or a token whose TSTInfo says what the test wants. With
 * `byKeyId` the SignerInfo names its signer by subject key identifier instead of issuer and serial.
 */
export async function resignTstInfo(dir: string, tstInfo: Buffer, certFile: string, keyFile: string, byKeyId = false): Promise<Buffer> {
  const input = path.join(dir, 'tstinfo.der');
  const output = path.join(dir, 'resigned.der');
  writeFileSync(input, tstInfo);
  await run('openssl', ['cms', '-sign', '-binary', '-nodetach', '-nosmimecap', '-md', 'sha256', '-econtent_type', '1.2.840.113549.1.9.16.1.4',
    '-in', input, '-signer', certFile, '-inkey', keyFile, '-outform', 'DER', '-out', output, ...(byKeyId ? ['-keyid'] : [])]);
  return readFileSync(output);
}
