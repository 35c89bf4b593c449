// Evidence anchors (issue 33), the pure part: the Merkle tree over chain heads (RFC 6962 hashing,
// compared with the RFC's recursive definition), the signed checkpoint document and what makes it
// unusable, and the comparison that names a chain rewritten after it was anchored.
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { canonicalJson } from '../../../protocol/evidence/canonical-json.js';
import { keyIdOf } from '../../../protocol/evidence/signature.js';
import { inclusionProof, leafHash, merkleRoot, verifyInclusion } from '../../../protocol/evidence/anchor/merkle.js';
import {
  anchorDocumentProblems,
  anchorObjectKey,
  buildCheckpoint,
  checkpointDigest,
  headLeaf,
  parseAnchorDocument,
  type AnchorDocument,
  type ChainHead,
  type Checkpoint,
} from '../../../protocol/evidence/anchor/checkpoint.js';
import { anchorTime, chainAgainstAnchors, checkAnchor, type AnchoredMember, type CheckedAnchor } from '../../../protocol/evidence/anchor/anchor-check.js';

/** RFC 6962 §2.1 MTH, recursively: split at the largest power of two below n. */
function referenceRoot(leaves: readonly string[]): Buffer {
  if (leaves.length === 0) return createHash('sha256').digest();
  if (leaves.length === 1) return leafHash(leaves[0]!);
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return createHash('sha256').update(Buffer.from([1])).update(referenceRoot(leaves.slice(0, k))).update(referenceRoot(leaves.slice(k))).digest();
}

const leavesOf = (n: number) => Array.from({ length: n }, (_, i) => `leaf-${i}`);

describe('merkleRoot', () => {
  it('is RFC 6962 Merkle Tree Hash for 0 to 33 leaves', () => {
    for (let n = 0; n <= 33; n++) expect(merkleRoot(leavesOf(n))).toBe(referenceRoot(leavesOf(n)).toString('hex'));
  });

  it('changes when any leaf changes, and with the order', () => {
    const leaves = leavesOf(7);
    const root = merkleRoot(leaves);
    for (let i = 0; i < leaves.length; i++) {
      const changed = [...leaves];
      changed[i] = `${changed[i]}!`;
      expect(merkleRoot(changed)).not.toBe(root);
    }
    expect(merkleRoot([...leaves].reverse())).not.toBe(root);
  });

  it('does not let an inner node pass as a leaf (second preimage)', () => {
    const leaves = leavesOf(2);
    const inner = Buffer.concat([leafHash(leaves[0]!), leafHash(leaves[1]!)]).toString('latin1');
    expect(merkleRoot([inner])).not.toBe(merkleRoot(leaves));
  });
});

describe('inclusion proofs', () => {
  it('verify for every leaf of trees of 1 to 20 leaves, and fail for another leaf or root', () => {
    for (let n = 1; n <= 20; n++) {
      const leaves = leavesOf(n);
      const root = merkleRoot(leaves);
      for (let i = 0; i < n; i++) {
        const proof = inclusionProof(leaves, i);
        expect(verifyInclusion(leaves[i]!, proof, root)).toBe(true);
        expect(verifyInclusion(`${leaves[i]}x`, proof, root)).toBe(false);
        expect(verifyInclusion(leaves[i]!, proof, merkleRoot(leavesOf(n + 1)))).toBe(false);
      }
    }
  });

  it('fail with a sibling hash changed or its side swapped', () => {
    const leaves = leavesOf(9);
    const root = merkleRoot(leaves);
    const proof = inclusionProof(leaves, 4);
    expect(proof.length).toBeGreaterThan(0);
    expect(verifyInclusion(leaves[4]!, [{ ...proof[0]!, hash: '0'.repeat(64) }, ...proof.slice(1)], root)).toBe(false);
    expect(verifyInclusion(leaves[4]!, [{ ...proof[0]!, side: proof[0]!.side === 'left' ? 'right' : 'left' }, ...proof.slice(1)], root)).toBe(false);
    expect(() => inclusionProof(leaves, 9)).toThrow(RangeError);
  });
});

// ------------------------------------------------------------------------------ checkpoints

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const keys = new Map<string, KeyObject>([[keyIdOf(publicKey), publicKey]]);
const digestOf = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

function signed(checkpoint: Checkpoint, key: KeyObject = privateKey): AnchorDocument {
  return {
    checkpoint,
    digest: checkpointDigest(checkpoint),
    signature: { keyId: keyIdOf(key), algorithm: 'Ed25519', value: sign(null, Buffer.from(canonicalJson(checkpoint)), key).toString('base64') },
  };
}

function checkpointAt(writtenAt: string, heads: ChainHead[]): Checkpoint {
  return buildCheckpoint({ installation: 'test-cluster/rehearsal-system', writtenAt: new Date(writtenAt), reason: 'scheduled', heads });
}

describe('a checkpoint', () => {
  const heads: ChainHead[] = [
    { testUid: 'uid-b', sequence: 4, digest: digestOf('b4') },
    { testUid: 'uid-a', sequence: 2, digest: digestOf('a2') },
  ];

  it('orders its heads by test uid, roots them, and names its object by time and root', () => {
    const checkpoint = checkpointAt('2026-12-07T10:00:00.123Z', heads);
    expect(checkpoint.heads.map((head) => head.testUid)).toEqual(['uid-a', 'uid-b']);
    expect(checkpoint.root).toBe(merkleRoot(checkpoint.heads.map(headLeaf)));
    expect(anchorObjectKey(checkpoint)).toBe(`anchors/20261207T100000Z-${checkpoint.root.slice(0, 16)}.json`);
  });

  it('as a stored anchor: parses back and has no problem', () => {
    const document = signed(checkpointAt('2026-12-07T10:00:00Z', heads));
    const parsed = parseAnchorDocument(JSON.stringify(document));
    expect(parsed).toEqual(document);
    expect(anchorDocumentProblems(parsed!, keys)).toEqual([]);
  });

  it('is named as edited when a head changes, and as unknown when signed by another key', () => {
    const document = signed(checkpointAt('2026-12-07T10:00:00Z', heads));
    const edited = structuredClone(document);
    edited.checkpoint.heads[0]!.sequence = 3;
    expect(anchorDocumentProblems(edited, keys)).toEqual([
      'its digest does not match its checkpoint (edited)',
      'its Merkle root does not match its heads',
      'its signature does not verify',
    ]);
    const other = generateKeyPairSync('ed25519').privateKey;
    expect(anchorDocumentProblems(signed(document.checkpoint, other), keys)).toEqual([`signed with unknown key ${keyIdOf(other)}`]);
  });

  it('refuses what is not an anchor', () => {
    expect(parseAnchorDocument('not json')).toBeUndefined();
    expect(parseAnchorDocument('{}')).toBeUndefined();
    const document = signed(checkpointAt('2026-12-07T10:00:00Z', heads));
    expect(parseAnchorDocument(JSON.stringify({ ...document, checkpoint: { ...document.checkpoint, heads: [{ testUid: 'x' }] } }))).toBeUndefined();
    expect(parseAnchorDocument(JSON.stringify({ ...document, checkpoint: { ...document.checkpoint, version: 2 } }))).toBeUndefined();
  });
});

// ------------------------------------------------------------------------------ chain vs anchors

function report(name: string, sequence: number, content = name): AnchoredMember {
  return { metadata: { name }, spec: { evidence: { sequence, digest: digestOf(content) } } };
}

function anchorOf(writtenAt: string, chain: readonly AnchoredMember[], testUid = 'uid-a'): CheckedAnchor {
  const newest = chain.at(-1)!.spec.evidence!;
  const document = signed(checkpointAt(writtenAt, [{ testUid, sequence: newest.sequence!, digest: newest.digest }, { testUid: 'uid-z', sequence: 1, digest: digestOf('z') }]));
  return checkAnchor(`anchors/${writtenAt}.json`, document, keys, []);
}

describe('chainAgainstAnchors', () => {
  const chain = [report('r1', 1), report('r2', 2), report('r3', 3), report('r4', 4)];
  const early = anchorOf('2026-12-07T09:00:00Z', chain.slice(0, 2));
  const late = anchorOf('2026-12-07T10:00:00Z', chain);

  it('agrees with an untouched chain, and says which anchor is the newest agreeing', () => {
    const result = chainAgainstAnchors(chain, 'uid-a', [early, late]);
    expect(result).toMatchObject({ problems: [], notes: [], anchors: 2 });
    expect(result.newestAgreeing).toBe(anchorTime(late));
    expect(early.timestampNote).toBe('not time-stamped (no authority was configured when it was written)');
  });

  it('names a report rewritten and re-chained after the anchor, with the anchor time', () => {
    // An administrator with the key changed r2 and re-signed r2..r4: new digests at the same sequences.
    const rewritten = [chain[0]!, report('r2', 2, 'r2-edited'), report('r3', 3, 'r3-rechained'), report('r4', 4, 'r4-rechained')];
    const result = chainAgainstAnchors(rewritten, 'uid-a', [early, late]);
    expect(result.problems).toEqual([
      `rewritten after it was anchored: r2 (sequence 2) has digest ${digestOf('r2-edited').slice(0, 19)}, but the anchor written 2026-12-07T09:00:00.000Z (the server's claim, not time-stamped) recorded sequence 2, ${digestOf('r2').slice(0, 19)}: this report or one before it was changed after that time`,
      `rewritten after it was anchored: r4 (sequence 4) has digest ${digestOf('r4-rechained').slice(0, 19)}, but the anchor written 2026-12-07T10:00:00.000Z (the server's claim, not time-stamped) recorded sequence 4, ${digestOf('r4').slice(0, 19)}: this report or one before it was changed after that time`,
    ]);
    expect(result.newestAgreeing).toBeUndefined();
  });

  it('names the earliest anchor that recorded a head when several did', () => {
    const again = anchorOf('2026-12-07T11:00:00Z', chain);
    const result = chainAgainstAnchors([...chain.slice(0, 3), report('r4', 4, 'forged')], 'uid-a', [again, late]);
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toContain('the anchor written 2026-12-07T10:00:00.000Z');
  });

  it('names deleted newest reports (missing tail) and a deleted anchored report', () => {
    expect(chainAgainstAnchors(chain.slice(0, 3), 'uid-a', [late]).problems).toEqual([
      `missing tail: the anchor written ${anchorTime(late)} recorded sequence 4, ${digestOf('r4').slice(0, 19)}; the newest report present is sequence 3: reports were deleted after that time`,
    ]);
    expect(chainAgainstAnchors([chain[0]!, chain[2]!, chain[3]!], 'uid-a', [early]).problems).toEqual([
      `deleted after it was anchored: the anchor written ${anchorTime(early)} recorded sequence 2, ${digestOf('r2').slice(0, 19)}, and no report has that sequence`,
    ]);
    expect(chainAgainstAnchors([], 'uid-a', [late]).problems[0]).toMatch(/^missing tail: .* the newest report present is none/);
  });

  it('notes an anchored report older than the oldest present (pruned), without a problem', () => {
    const result = chainAgainstAnchors(chain.slice(2), 'uid-a', [early]);
    expect(result.problems).toEqual([]);
    expect(result.notes).toEqual([`the anchor written ${anchorTime(early)} recorded sequence 2, ${digestOf('r2').slice(0, 19)}, older than the oldest report present (sequence 3): pruned or archived elsewhere`]);
  });

  it('does not use a broken anchor, and ignores anchors of other tests', () => {
    const forged = { ...late, problems: ['its signature does not verify'] };
    expect(chainAgainstAnchors([report('x', 4)], 'uid-a', [forged])).toMatchObject({ problems: [], anchors: 0 });
    expect(chainAgainstAnchors(chain, 'uid-other', [early, late])).toMatchObject({ problems: [], anchors: 0 });
  });
});
