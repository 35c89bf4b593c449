// The evidence checkpoint: where every RestoreTest's chain had got to at one moment (its newest
// report's sequence and digest), under one Merkle root, signed with the evidence key and
// time-stamped by an RFC 3161 authority. The server writes it to write-once storage (S3 Object
// Lock, compliance mode) every hour and at every archive segment (server/evidence/anchor/); that
// stored document is an "anchor". Every verifier reads anchors with this module.
//
// Why it holds against a cluster administrator (issue 33): the administrator can read the signing
// key and rewrite, re-sign and re-chain every report, and even write new anchors; but the anchors
// already written cannot be changed or deleted inside their retention, and the authority's token
// proves when each was written. A rewritten history disagrees with every anchor written before the
// rewrite: anchor-check.ts names it with the anchor's time. The signature only says which
// installation wrote an anchor; it is not what protects it.
//
// A chain is named by its RestoreTest's uid (as the chain verifier keys chains), never by name: a
// checkpoint lists no namespace or test names, only uids and digests.
import type { KeyObject } from 'node:crypto';
import { canonicalJson, sha256Hex } from '../canonical-json.js';
import { verifySignature } from '../signature.js';
import { merkleRoot } from './merkle.js';

export const CHECKPOINT_KIND = 'RehearsalEvidenceCheckpoint';
export const CHECKPOINT_VERSION = 1;
/** Where anchors are stored in their bucket: anchors/<writtenAt, compact>-<root, 16 hex>.json. */
export const ANCHOR_PREFIX = 'anchors/';

/** The newest report of one RestoreTest's chain when the checkpoint was taken. */
export interface ChainHead {
  testUid: string;
  sequence: number;
  /** spec.evidence.digest of that report ("sha256:…"). */
  digest: string;
}

export type CheckpointReason = 'scheduled' | 'archive-segment' | 'start';

export interface Checkpoint {
  kind: typeof CHECKPOINT_KIND;
  version: typeof CHECKPOINT_VERSION;
  /** The installation's identity: its configured cluster name and Rehearsal's namespace. */
  installation: string;
  /** The server's clock when written (claimed; the authority's token is the proof of time). */
  writtenAt: string;
  reason: CheckpointReason;
  /** Sorted by testUid, one per chain. */
  heads: ChainHead[];
  /** Merkle root (merkle.ts) over headLeaf of each head, in order. */
  root: string;
  /** The digest of the checkpoint this installation wrote before, when it had one. */
  previous?: string;
}

/** An anchor as stored: the checkpoint, its digest and signature, and the authority's token. */
export interface AnchorDocument {
  checkpoint: Checkpoint;
  /** "sha256:" + SHA-256 of the canonical JSON of the checkpoint: the bytes signed and time-stamped. */
  digest: string;
  signature: { keyId: string; algorithm: 'Ed25519'; value: string };
  /** RFC 3161 token (DER, base64) over the same bytes; absent when no authority is configured. */
  timestamp?: { token: string };
}

/** The bytes a checkpoint's signature and time-stamp cover. */
export function checkpointBytes(checkpoint: Checkpoint): Buffer {
  return Buffer.from(canonicalJson(checkpoint), 'utf8');
}

export function checkpointDigest(checkpoint: Checkpoint): string {
  return `sha256:${sha256Hex(checkpointBytes(checkpoint))}`;
}

/** A head as a Merkle leaf: its canonical JSON. */
export function headLeaf(head: ChainHead): string {
  return canonicalJson({ testUid: head.testUid, sequence: head.sequence, digest: head.digest });
}

/** Heads in checkpoint order (by testUid), without a second head for the same test. */
export function orderHeads(heads: readonly ChainHead[]): ChainHead[] {
  const byUid = new Map<string, ChainHead>();
  for (const head of heads) byUid.set(head.testUid, head);
  return [...byUid.values()].sort((a, b) => (a.testUid < b.testUid ? -1 : a.testUid > b.testUid ? 1 : 0));
}

export function buildCheckpoint(input: {
  installation: string;
  writtenAt: Date;
  reason: CheckpointReason;
  heads: readonly ChainHead[];
  previous?: string;
}): Checkpoint {
  const heads = orderHeads(input.heads);
  return {
    kind: CHECKPOINT_KIND,
    version: CHECKPOINT_VERSION,
    installation: input.installation,
    writtenAt: input.writtenAt.toISOString(),
    reason: input.reason,
    heads,
    root: merkleRoot(heads.map(headLeaf)),
    ...(input.previous ? { previous: input.previous } : {}),
  };
}

/** The object key an anchor is stored under (sortable by time). */
export function anchorObjectKey(checkpoint: Checkpoint): string {
  const stamp = checkpoint.writtenAt.replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `${ANCHOR_PREFIX}${stamp}-${checkpoint.root.slice(0, 16)}.json`;
}

/** Parses a stored anchor; undefined when it is not one (the verifier names the object). */
export function parseAnchorDocument(text: string): AnchorDocument | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const document = value as Partial<AnchorDocument> | null;
  const checkpoint = document?.checkpoint as Partial<Checkpoint> | undefined;
  if (
    !document ||
    typeof document.digest !== 'string' ||
    typeof document.signature?.keyId !== 'string' ||
    typeof document.signature.value !== 'string' ||
    checkpoint?.kind !== CHECKPOINT_KIND ||
    checkpoint.version !== CHECKPOINT_VERSION ||
    typeof checkpoint.writtenAt !== 'string' ||
    typeof checkpoint.root !== 'string' ||
    !Array.isArray(checkpoint.heads) ||
    !checkpoint.heads.every(isHead) ||
    (document.timestamp !== undefined && typeof document.timestamp.token !== 'string')
  ) {
    return undefined;
  }
  return document as AnchorDocument;
}

function isHead(value: unknown): value is ChainHead {
  const head = value as Partial<ChainHead> | null;
  return typeof head?.testUid === 'string' && Number.isInteger(head.sequence) && typeof head.digest === 'string';
}

/** What is wrong with the document itself (digest, root, order, signature); [] when nothing. */
export function anchorDocumentProblems(document: AnchorDocument, publicKeys: ReadonlyMap<string, KeyObject>): string[] {
  const problems: string[] = [];
  const { checkpoint } = document;
  if (checkpointDigest(checkpoint) !== document.digest) problems.push('its digest does not match its checkpoint (edited)');
  const ordered = orderHeads(checkpoint.heads);
  if (ordered.length !== checkpoint.heads.length || ordered.some((head, i) => head !== checkpoint.heads[i])) {
    problems.push('its heads are not one per test in testUid order');
  }
  if (merkleRoot(checkpoint.heads.map(headLeaf)) !== checkpoint.root) problems.push('its Merkle root does not match its heads');
  const key = publicKeys.get(document.signature.keyId);
  if (!key) problems.push(`signed with unknown key ${document.signature.keyId}`);
  else if (!verifySignature(canonicalJson(checkpoint), document.signature.value, key)) problems.push('its signature does not verify');
  return problems;
}
