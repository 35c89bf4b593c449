// A Merkle tree over the chain heads of one checkpoint, hashed as RFC 6962 (Certificate
// Transparency) does: a leaf is SHA-256(0x00 || leaf bytes), an inner node SHA-256(0x01 || left ||
// right), and an odd node at the end of a level is carried up unchanged (RFC 6962 §2.1's split at
// the largest power of two gives the same root). The 0x00/0x01 prefixes keep a leaf from being
// passed off as an inner node. One root names every head; an inclusion proof (the sibling hashes
// from a leaf up) lets an auditor holding one test's head check it is under an anchored root
// without the other tests' heads.
import { createHash } from 'node:crypto';

function sha256(...parts: Uint8Array[]): Buffer {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest();
}

const LEAF = Buffer.from([0]);
const NODE = Buffer.from([1]);

export function leafHash(leaf: string): Buffer {
  return sha256(LEAF, Buffer.from(leaf, 'utf8'));
}

function nodeHash(left: Buffer, right: Buffer): Buffer {
  return sha256(NODE, left, right);
}

/** The root of the tree over `leaves` in order, lowercase hex; the hash of nothing for none. */
export function merkleRoot(leaves: readonly string[]): string {
  if (leaves.length === 0) return sha256().toString('hex');
  let level = leaves.map(leafHash);
  while (level.length > 1) level = nextLevel(level);
  return level[0]!.toString('hex');
}

function nextLevel(level: readonly Buffer[]): Buffer[] {
  const next: Buffer[] = [];
  for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? nodeHash(level[i]!, level[i + 1]!) : level[i]!);
  return next;
}

/** One step of an inclusion proof: the sibling's hash and on which side it sits. */
export interface ProofStep {
  side: 'left' | 'right';
  hash: string;
}

/** The sibling hashes from leaf `index` up to the root (steps of a carried odd node are skipped). */
export function inclusionProof(leaves: readonly string[], index: number): ProofStep[] {
  if (!Number.isInteger(index) || index < 0 || index >= leaves.length) throw new RangeError(`no leaf ${index} among ${leaves.length}`);
  const proof: ProofStep[] = [];
  let level = leaves.map(leafHash);
  let position = index;
  while (level.length > 1) {
    const sibling = position % 2 === 0 ? position + 1 : position - 1;
    if (sibling < level.length) proof.push({ side: position % 2 === 0 ? 'right' : 'left', hash: level[sibling]!.toString('hex') });
    level = nextLevel(level);
    position = Math.floor(position / 2);
  }
  return proof;
}

/** Whether `leaf` with this proof hashes up to `root`. */
export function verifyInclusion(leaf: string, proof: readonly ProofStep[], root: string): boolean {
  let hash = leafHash(leaf);
  for (const step of proof) {
    if (!/^[0-9a-f]{64}$/.test(step.hash)) return false;
    const sibling = Buffer.from(step.hash, 'hex');
    hash = step.side === 'left' ? nodeHash(sibling, hash) : nodeHash(hash, sibling);
  }
  return hash.toString('hex') === root;
}
