// The evidence anchor: the newest signed report of a RestoreTest (its chain sequence and digest),
// kept in the test's status.evidenceAnchor. A chain whose newest reports were deleted still links
// perfectly — every remaining report points at one that exists — so only a record of where the
// chain had got to can tell that it is too short. The server writes the anchor
// (server/evidence/evidence-anchor.ts); every verifier compares a chain's tail with it here.
import { short } from './digest-text.js';

/** RestoreTest status.evidenceAnchor: the newest report its chain had when last recorded. */
export interface EvidenceAnchor {
  sequence: number;
  digest: string;
  report: string;
}

/** The fields of a report the tail check reads. */
interface ChainMember {
  metadata: { name: string };
  spec: { evidence?: { digest: string; sequence?: number } };
}

/**
 * Compares the newest report of a chain (the last of an oldest-first list) with the test's
 * anchor. An intact chain whose newest reports were deleted links perfectly; only the anchor
 * knows it is too short.
 */
export function tailAgainstAnchor(
  reports: readonly ChainMember[],
  anchor: EvidenceAnchor,
): { problems: string[]; notes: string[] } {
  const anchored = `${anchor.report} (sequence ${anchor.sequence}, ${short(anchor.digest)})`;
  const newest = reports.at(-1);
  if (!newest) {
    return {
      problems: [`missing tail: no reports, but the test's evidence anchor names ${anchored}: the reports were deleted`],
      notes: [],
    };
  }
  const position = reports.findIndex((report) => report.spec.evidence?.digest === anchor.digest);
  if (position === reports.length - 1) return { problems: [], notes: [] };
  if (position >= 0) {
    return {
      problems: [],
      notes: [`the evidence anchor names ${anchored}; ${reports.length - 1 - position} newer report(s) were written after it was recorded`],
    };
  }
  const sequence = newest.spec.evidence?.sequence;
  const present = `${newest.metadata.name}${sequence === undefined ? '' : ` (sequence ${sequence})`}`;
  if (sequence !== undefined && sequence > anchor.sequence) {
    return { problems: [], notes: [`the evidence anchor (${anchored}) is older than the newest report ${present}`] };
  }
  if (sequence === anchor.sequence) {
    return {
      problems: [`replaced: the newest report ${present} has the anchor's sequence but not its digest; the test's evidence anchor names ${anchored}`],
      notes: [],
    };
  }
  const deleted = sequence === undefined ? 'the newest report(s)' : `${anchor.sequence - sequence} newest report(s)`;
  return {
    problems: [
      `missing tail: the test's evidence anchor names ${anchored}, which is not in the set; the newest report present is ${present}: ${deleted} were deleted`,
    ],
    notes: [],
  };
}
