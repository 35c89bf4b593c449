// verify --anchors: the anchors an auditor downloaded from the write-once bucket (issue 33), read,
// checked and compared with each chain verify has just checked. The checks are protocol/'s
// (anchor-check.ts, the server's own); this module reads the files and turns the results into the
// lines verify prints.
//
// What fails the run and what does not (docs/evidence.md, "Anchors"):
// - a chain that disagrees with a usable anchor: `anchor: <problem>`, exit 1. This is the evidence
//   a cluster administrator cannot rewrite;
// - an anchor that fails its own checks (edited, unknown key, a token that does not verify against
//   --tsa-cert): `warning: anchor … is not used: …`, and it is left out. It does not fail the run by
//   itself: anyone who may write to the bucket can add such a file, and it cannot hide or remove
//   the locked anchors beside it;
// - no usable anchor at all although anchors were given: exit 1, since nothing was compared (a
//   wrong --public-key or --tsa-cert looks like this; passing would be a pass without evidence).
import { X509Certificate, type KeyObject } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { chainAgainstAnchors, checkAnchor, unusableAnchorTexts, type CheckedAnchor } from '../../../protocol/evidence/anchor/anchor-check.js';
import { parseAnchorDocument, type AnchorDocument } from '../../../protocol/evidence/anchor/checkpoint.js';
import { canonicalJson } from '../../../protocol/evidence/canonical-json.js';
import { short } from '../../../protocol/evidence/digest-text.js';
import { evidenceOwner, type SignedReport } from '../../../protocol/evidence/report-digest.js';
import { CliError } from '../errors.js';

export interface AnchorFile {
  source: string;
  document: AnchorDocument;
}

/** What --anchors gave: the anchor documents (copies counted once) and notes about the rest. */
export interface AnchorFiles {
  documents: AnchorFile[];
  notes: string[];
}

async function readFileText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
  }
}

/** Every *.json file under a directory, recursively, in a stable order. */
async function jsonFilesUnder(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.json'))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

/**
 * Reads --anchors paths. A file named explicitly must be an anchor document (else an error: it was
 * asked for); in a directory, every *.json is read and one that is not an anchor is a note (a
 * download of the bucket may hold other objects). A directory without any anchor is an error.
 */
export async function readAnchorFiles(paths: readonly string[]): Promise<AnchorFiles> {
  const documents: AnchorFile[] = [];
  const notes: string[] = [];
  const seen = new Set<string>();
  let copies = 0;
  const add = (source: string, document: AnchorDocument) => {
    // The same object downloaded twice (e.g. `aws s3 cp --recursive` and every version) is one anchor.
    const identity = canonicalJson(document);
    if (seen.has(identity)) copies += 1;
    else documents.push({ source, document });
    seen.add(identity);
  };
  for (const given of paths) {
    let isDirectory: boolean;
    try {
      isDirectory = (await stat(given)).isDirectory();
    } catch (error) {
      throw new CliError(`cannot read ${given}: ${(error as Error).message}`);
    }
    if (!isDirectory) {
      const document = parseAnchorDocument(await readFileText(given));
      if (!document) throw new CliError(`${given}: not an anchor document (a RehearsalEvidenceCheckpoint with its digest and signature)`);
      add(given, document);
      continue;
    }
    let found = 0;
    for (const file of await jsonFilesUnder(given)) {
      const document = parseAnchorDocument(await readFileText(file));
      if (!document) {
        notes.push(`${file}: not an anchor document, skipped`);
        continue;
      }
      found += 1;
      add(file, document);
    }
    if (found === 0) throw new CliError(`${given}: no anchor documents in this directory (every *.json under it is read)`);
  }
  if (copies > 0) notes.push(`${copies} anchor file${copies === 1 ? ' was a copy' : 's were copies'} of another read, counted once`);
  return { documents, notes };
}

/** The timestamp authority's CA certificates from --tsa-cert PEM files (several per file allowed). */
export async function readAuthorityCertificates(files: readonly string[]): Promise<X509Certificate[]> {
  const certificates: X509Certificate[] = [];
  for (const file of files) {
    const blocks = (await readFileText(file)).match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
    if (blocks.length === 0) throw new CliError(`${file}: no CERTIFICATE block found (--tsa-cert takes the authority's CA certificate, PEM)`);
    for (const block of blocks) {
      try {
        certificates.push(new X509Certificate(block));
      } catch (error) {
        throw new CliError(`${file}: not an X.509 certificate: ${(error as Error).message}`);
      }
    }
  }
  return certificates;
}

/** The anchors checked, and the lines to print once before the chains. */
export interface AnchorSet {
  /** Every anchor read, usable or not (chainAgainstAnchors leaves the unusable out). */
  anchors: CheckedAnchor[];
  lines: string[];
  /** False when anchors were given but none can be used: nothing was compared. */
  ok: boolean;
}

/** Checks every anchor against the trusted keys and authorities (checkAnchor). */
export function checkAnchorFiles(files: AnchorFiles, keys: ReadonlyMap<string, KeyObject>, authorities: readonly X509Certificate[]): AnchorSet {
  const anchors = files.documents.map(({ source, document }) => checkAnchor(source, document, keys, authorities));
  const usable = anchors.filter((anchor) => anchor.problems.length === 0);
  const lines = files.notes.map((note) => `note: ${note}`);
  for (const text of unusableAnchorTexts(anchors)) lines.push(`warning: ${text}`);

  // Why the times of usable anchors are the server's claim, once per reason.
  const byNote = new Map<string, number>();
  for (const anchor of usable) if (anchor.timestampNote) byNote.set(anchor.timestampNote, (byNote.get(anchor.timestampNote) ?? 0) + 1);
  for (const [note, count] of byNote) {
    const hint = note.startsWith('time-stamp not checked') ? ' (--tsa-cert PEM)' : '';
    lines.push(`note: ${count} of ${usable.length} anchors used: ${note}${hint}; their times are the server's claim`);
  }

  // Each installation's anchors name the one before: a missing one was not downloaded (or is past its retention).
  const digests = new Set(usable.map((anchor) => anchor.document.digest));
  for (const anchor of usable) {
    const previous = anchor.document.checkpoint.previous;
    if (previous && !digests.has(previous)) {
      lines.push(`note: anchor ${anchor.source} follows an anchor not among those read (${short(previous)}): not downloaded (every version under anchors/?), or past its retention`);
    }
  }

  const ok = usable.length > 0;
  if (!ok) lines.push(`anchor: none of the ${anchors.length} anchors read can be used (warnings above): the chains were not compared with any`);
  return { anchors, lines, ok };
}

/**
 * One test's reports against the anchors, per chain (RestoreTest uid; more than one when a test
 * was deleted and created again under its name): problems as `anchor: …`, notes, and a summary.
 * `knownUid` is the RestoreTest's own uid when read, so a chain whose reports are all gone is compared too.
 */
export function compareWithAnchors(test: string, reports: readonly SignedReport[], set: AnchorSet, knownUid?: string): { ok: boolean; lines: string[] } {
  const byUid = new Map<string, SignedReport[]>();
  if (knownUid) byUid.set(knownUid, []);
  let withoutUid = 0;
  for (const report of reports) {
    const uid = evidenceOwner(report.metadata, report.spec.testRef)?.uid;
    if (uid) byUid.set(uid, [...(byUid.get(uid) ?? []), report]);
    else withoutUid += 1;
  }
  const lines: string[] = [];
  if (withoutUid > 0) lines.push(`note: ${withoutUid} report${withoutUid === 1 ? '' : 's'} of ${test} name no RestoreTest uid (no ownerReference, no spec.testRef.uid): anchors cannot speak for them`);
  let ok = true;
  for (const [uid, group] of byUid) {
    const chain = byUid.size > 1 ? `${test} (uid ${uid})` : test;
    const result = chainAgainstAnchors(group, uid, set.anchors);
    ok &&= result.problems.length === 0;
    for (const problem of result.problems) lines.push(`anchor: ${problem}`);
    for (const note of result.notes) lines.push(`note: ${note}`);
    lines.push(anchorSummary(chain, result.anchors, result.newestAgreeing));
  }
  return { ok, lines };
}

function anchorSummary(chain: string, recorded: number, newestAgreeing: string | undefined): string {
  if (recorded === 0) return `anchors: none recorded the chain of ${chain}`;
  const agreeing = newestAgreeing ? `newest agreeing written ${newestAgreeing}` : 'none agrees with it';
  return `anchors: ${recorded} recorded the chain of ${chain}; ${agreeing}`;
}
