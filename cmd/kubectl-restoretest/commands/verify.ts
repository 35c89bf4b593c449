// verify: checks signed evidence offline with the verifiers of protocol/ (the server's own): a
// test's RestoreReports from the API, an exported file of reports (-f), or a PDF's attestation (--pdf).
// Trusted keys: --public-key PEM file(s), else GET /api/v1/evidence/keys.
// The newest report a chain should have is the RestoreTest's status.evidenceAnchor: read from the
// Kubernetes API for NAME, or taken from RestoreTests in the file (kubectl get rtest,rrep -o yaml).
// --anchors compares each chain with the anchors downloaded from the write-once bucket (issue 33):
// verify-anchors.ts.
import { readFile } from 'node:fs/promises';
import type { KeyObject } from 'node:crypto';
import { CliError, UsageError } from '../errors.js';
import { ANNOTATION_PROBLEMS, ANNOTATION_SEGMENT } from '../../../protocol/evidence/archive-annotations.js';
import type { EvidenceAnchor } from '../../../protocol/evidence/evidence-anchor.js';
import { orderReportsForChain, verifyReportChain } from '../../../protocol/evidence/report-chain.js';
import { evidenceOwner, type SignedReport } from '../../../protocol/evidence/report-digest.js';
import { keysFromPem } from '../../../protocol/evidence/signature.js';
import { verifyPdfAttestation } from '../../../protocol/pdf/attestation-check.js';
import { expandStoredReport } from '../../../protocol/stored-report/stored-report.js';
import { checkName } from '../validate.js';
import { checkAnchorFiles, compareWithAnchors, readAnchorFiles, readAuthorityCertificates, type AnchorSet } from './verify-anchors.js';
import { defineCommand, type CommandContext, type Session } from './command.js';

/** What the plugin cannot check: comparing the pages needs the server's renderer (protocol/pdf/attestation-check.ts). */
const PAGES_NOT_COMPARED = 'page content was not compared: this verifier checks the signed evidence and the attestation, not the rendered pages';

interface VerifyArgs {
  name?: string;
  filename?: string;
  publicKey?: string[];
  pdf?: string;
  anchors?: string[];
  tsaCert?: string[];
}

async function readText(context: CommandContext, file: string): Promise<string> {
  try {
    return file === '-' ? await context.io.readStdin() : await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
  }
}

async function trustedKeys(context: CommandContext, files: readonly string[]): Promise<Map<string, KeyObject>> {
  const keys = new Map<string, KeyObject>();
  if (files.length > 0) {
    for (const file of files) {
      let found: Map<string, KeyObject>;
      try {
        found = keysFromPem(await readText(context, file));
      } catch (error) {
        throw new CliError(`${file}: not a PEM public key: ${(error as Error).message}`);
      }
      if (found.size === 0) throw new CliError(`${file}: no PUBLIC KEY block found`);
      for (const [id, key] of found) keys.set(id, key);
    }
    return keys;
  }
  const session = await context.session();
  for (const published of await session.api.evidenceKeys()) {
    for (const [id, key] of keysFromPem(published.publicKeyPem)) keys.set(id, key);
  }
  return keys;
}

interface FileContents {
  reports: SignedReport[];
  /** status.evidenceAnchor of the RestoreTests in the file, by "namespace/name". */
  evidenceAnchors: Map<string, EvidenceAnchor>;
  /** metadata.uid of the RestoreTests in the file, by "namespace/name". */
  uids: Map<string, string>;
}

function isAnchor(value: unknown): value is EvidenceAnchor {
  const anchor = value as Partial<EvidenceAnchor> | null | undefined;
  return typeof anchor?.sequence === 'number' && typeof anchor.digest === 'string' && typeof anchor.report === 'string';
}

/** The test's evidence anchor (and uid) from the Kubernetes API, or why it could not be read. */
async function testFromCluster(session: Session, namespace: string, name: string): Promise<{ anchor: EvidenceAnchor; uid?: string } | string> {
  const kube = session.connection.kube;
  if (!kube) return 'no kubeconfig to read the RestoreTest with';
  try {
    const response = await kube.get(`/apis/rehearsal.dev/v1alpha1/namespaces/${encodeURIComponent(namespace)}/restoretests/${encodeURIComponent(name)}`);
    if (!response.ok) return `reading RestoreTest ${namespace}/${name} answered HTTP ${response.status}`;
    const test = (await response.json()) as { metadata?: { uid?: unknown }; status?: { evidenceAnchor?: unknown } };
    const anchor = test.status?.evidenceAnchor;
    if (!isAnchor(anchor)) return `RestoreTest ${namespace}/${name} has no status.evidenceAnchor (reports signed before sequences)`;
    return typeof test.metadata?.uid === 'string' ? { anchor, uid: test.metadata.uid } : { anchor };
  } catch (error) {
    return `reading RestoreTest ${namespace}/${name} failed: ${(error as Error).message}`;
  }
}

async function reportsFromFile(text: string, file: string): Promise<FileContents> {
  // Loaded here only: every other verb starts without the YAML parser.
  const { parse: parseYaml } = await import('yaml');
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (error) {
    throw new CliError(`${file}: not YAML or JSON: ${(error as Error).message}`);
  }
  const items = Array.isArray(value) ? value : (value as { items?: unknown } | null)?.items;
  const list = Array.isArray(items) ? items : value && typeof value === 'object' && 'spec' in value ? [value] : undefined;
  if (!list) throw new CliError(`${file}: expected a List of RestoreReports (kubectl get rrep -o yaml) or an array of them`);
  const evidenceAnchors = new Map<string, EvidenceAnchor>();
  const uids = new Map<string, string>();
  const reports: SignedReport[] = [];
  for (const [i, item] of list.entries()) {
    const object = item as (Partial<SignedReport> & { kind?: unknown; status?: { evidenceAnchor?: unknown } }) | null;
    if (!object || typeof object.metadata?.name !== 'string' || typeof object.spec !== 'object') {
      throw new CliError(`${file}: item ${i} is not a RestoreReport (no metadata.name or spec)`);
    }
    if (object.kind === 'RestoreTest') {
      const test = `${object.metadata.namespace ?? ''}/${object.metadata.name}`;
      const anchor = object.status?.evidenceAnchor;
      if (isAnchor(anchor)) evidenceAnchors.set(test, anchor);
      const uid = (object.metadata as { uid?: unknown }).uid;
      if (typeof uid === 'string') uids.set(test, uid);
    } else {
      reports.push(expandStoredReport(object as SignedReport));
    }
  }
  return { reports, evidenceAnchors, uids };
}

/**
 * Problems the server found in the archive segments these reports came from (a segment's own
 * checks: manifest signature, content digest, segment chain), once each. The reports themselves
 * are verified here as any other; these name the damaged object in the archive.
 */
function archiveProblems(reports: readonly SignedReport[]): string[] {
  const problems = new Set<string>();
  for (const report of reports) {
    const text = report.metadata.annotations?.[ANNOTATION_PROBLEMS];
    if (!text) continue;
    try {
      for (const problem of JSON.parse(text) as unknown[]) problems.add(String(problem));
    } catch {
      problems.add(`${report.metadata.annotations?.[ANNOTATION_SEGMENT] ?? report.metadata.name}: ${text}`);
    }
  }
  return [...problems];
}

/**
 * The RestoreTest a report belongs to: its owner (ownerReference, or spec.testRef for reports
 * written without one since issue 17), else the old spec.testName.
 */
function testOf(report: SignedReport): string {
  const owner = evidenceOwner(report.metadata, report.spec.testRef)?.name;
  const testRef = report.spec.testRef as { name?: unknown } | undefined;
  const test = typeof testRef?.name === 'string' ? testRef.name : (report.spec as { testName?: unknown }).testName;
  return `${report.metadata.namespace ?? ''}/${owner ?? (typeof test === 'string' ? test : '')}`;
}

export const verifyCommand = defineCommand({
  command: 'verify [name]',
  describe: 'Verify signed evidence: RestoreReport digest chains and signatures, or a PDF',
  outputs: ['table'],
  examples: [
    ['$0 verify payments', 'the reports of "payments", against the keys the API publishes'],
    ['$0 verify -f reports.yaml --public-key rehearsal.pem', 'an export (kubectl get rrep -o yaml), fully offline'],
    ['$0 verify --pdf soc2.pdf --public-key rehearsal.pem', 'the attestation of a downloaded PDF, offline'],
    ['$0 verify payments --anchors ./anchors --tsa-cert tsa-ca.pem', 'also against the anchors downloaded from the write-once bucket, their time-stamps checked'],
  ],
  options: (yargs) =>
    yargs
      .positional('name', { type: 'string', describe: 'name of the RestoreTest whose reports to verify' })
      .option('filename', { alias: 'f', type: 'string', requiresArg: true, describe: 'file of exported RestoreReports (YAML or JSON; - for stdin)' })
      .option('public-key', { type: 'string', array: true, requiresArg: true, describe: 'PEM file of trusted public keys (repeatable); default: the API\'s published keys' })
      .option('pdf', { type: 'string', requiresArg: true, describe: 'verify the attestation of this PDF instead' })
      .option('anchors', {
        type: 'string',
        array: true,
        requiresArg: true,
        describe: 'anchor document, or a directory of them (every *.json, recursively), downloaded from the anchor bucket (repeatable): each chain must agree with them',
      })
      .option('tsa-cert', {
        type: 'string',
        array: true,
        requiresArg: true,
        describe: 'PEM file of the timestamp authority\'s CA certificate(s) (repeatable), to check the anchors\' RFC 3161 time-stamps; without it they are not checked',
      }) as never,
  async run(context, args: VerifyArgs) {
    const sources = [args.name, args.filename, args.pdf].filter((s) => s !== undefined).length;
    if (sources !== 1) throw new UsageError('give exactly one of NAME, -f FILE or --pdf FILE');
    const name = args.name === undefined ? undefined : checkName(args.name, 'NAME');
    if (args.tsaCert !== undefined && args.anchors === undefined) throw new UsageError('--tsa-cert checks the time-stamps of anchors: give --anchors too');
    if (args.anchors !== undefined && args.pdf !== undefined) throw new UsageError('--anchors checks report chains: give NAME or -f FILE, not --pdf');
    const write = (line: string) => context.io.stdout(`${line}\n`);

    if (args.pdf !== undefined) {
      let bytes: Buffer;
      try {
        bytes = await readFile(args.pdf);
      } catch (error) {
        throw new CliError(`cannot read ${args.pdf}: ${(error as Error).message}`);
      }
      const keys = await trustedKeys(context, args.publicKey ?? []);
      const result = verifyPdfAttestation(bytes, keys);
      const a = result.attestation;
      write(`${args.pdf}: ${result.ok ? 'OK' : 'FAILED'}${a ? ` (${String(a.kind)} ${String(a.reportId)}, key ${String(a.keyId)}, ${String(a.runs)} runs)` : ''}`);
      for (const problem of result.problems) write(`  - ${problem}`);
      for (const note of [...result.notes, PAGES_NOT_COMPARED]) write(`  note: ${note}`);
      return result.ok ? 0 : 1;
    }

    // Read first: a wrong path is found before anything is sent.
    const anchorFiles = args.anchors === undefined ? undefined : await readAnchorFiles(args.anchors);
    const authorities = await readAuthorityCertificates(args.tsaCert ?? []);

    let reports: SignedReport[];
    let evidenceAnchors = new Map<string, EvidenceAnchor>();
    let uids = new Map<string, string>();
    const byTest = new Map<string, SignedReport[]>();
    const notes: string[] = [];
    if (name !== undefined) {
      if (context.global.allNamespaces) throw new UsageError('a RestoreTest cannot be named across all namespaces (-A); use -n NAMESPACE');
      const session = await context.session();
      reports = (await session.api.listReports({ test: name, namespace: session.requestNamespace, days: 3650 })) as unknown as SignedReport[];
      const namespace = reports[0]?.metadata.namespace ?? session.namespace;
      const fromCluster = await testFromCluster(session, namespace, name);
      if (typeof fromCluster === 'string') {
        notes.push(`${fromCluster}: deleted newest reports cannot be detected`);
        if (reports.length === 0) throw new CliError(`no reports found for RestoreTest ${name}`);
      } else {
        evidenceAnchors.set(`${namespace}/${name}`, fromCluster.anchor);
        if (fromCluster.uid) uids.set(`${namespace}/${name}`, fromCluster.uid);
        byTest.set(`${namespace}/${name}`, []); // verified even when every report is gone
      }
    } else {
      ({ reports, evidenceAnchors, uids } = await reportsFromFile(await readText(context, args.filename!), args.filename!));
      if (reports.length === 0) throw new CliError(`${args.filename}: no reports in the file`);
    }
    const keys = await trustedKeys(context, args.publicKey ?? []);
    // The anchors are signed with the evidence key, so the reports' trusted keys are theirs too.
    const anchorSet: AnchorSet | undefined = anchorFiles && checkAnchorFiles(anchorFiles, keys, authorities);

    // One chain per RestoreTest, oldest first (an export lists several tests, newest first).
    for (const report of reports) byTest.set(testOf(report), [...(byTest.get(testOf(report)) ?? []), report]);
    let ok = true;
    let verified = 0;
    for (const note of notes) write(`note: ${note}`);
    for (const line of anchorSet?.lines ?? []) write(line);
    if (anchorSet) ok &&= anchorSet.ok;
    for (const [test, group] of byTest) {
      const anchor = evidenceAnchors.get(test);
      const result = verifyReportChain(orderReportsForChain(group), keys, anchor ? { anchor } : {});
      const segments = new Map(group.map((r) => [r.metadata.name, r.metadata.annotations?.[ANNOTATION_SEGMENT]]));
      const archive = archiveProblems(group);
      ok &&= result.ok && archive.length === 0;
      for (const report of result.reports) {
        if (report.ok) verified += 1;
        const segment = segments.get(report.name);
        write(`${report.name}: ${report.ok ? 'OK' : `${report.problems.join('; ')}${segment ? ` (archived in ${segment})` : ''}`}`);
      }
      for (const problem of archive) write(`archive: ${problem}`);
      for (const problem of result.wholeChainProblems) write(`chain: ${problem}`);
      for (const note of result.notes) write(`note: ${note}`);
      if (anchorSet?.ok) {
        const compared = compareWithAnchors(test, group, anchorSet, uids.get(test));
        ok &&= compared.ok;
        for (const line of compared.lines) write(line);
      }
    }
    write(`${verified}/${reports.length} reports verified${ok ? '' : '; evidence does NOT verify'}`);
    return ok ? 0 : 1;
  },
});
