// The evidence anchor: the newest signed report of a RestoreTest (its chain sequence and digest),
// kept in the test's status.evidenceAnchor and in metrics. A chain whose newest reports were
// deleted still links perfectly — every remaining report points at one that exists — so only a
// record of where the chain had got to can tell that it is too short.
//
// Written after the report exists (never before: an anchor naming a report whose create failed
// would read as a deletion), by recordEvidenceAnchor, which the engine calls once per report.
import type { EvidenceAnchor, RestoreReport } from '../domain/resources/resources.js';
import { short } from '../../protocol/evidence/digest-text.js';

/** The anchor a signed report leaves in its test's status; undefined for an unsequenced report. */
export function evidenceAnchorOf(report: RestoreReport): EvidenceAnchor | undefined {
  const evidence = report.spec.evidence;
  if (evidence?.sequence === undefined) return undefined;
  return { sequence: evidence.sequence, digest: evidence.digest, report: report.metadata.name };
}

/**
 * Compares the newest report of a chain (oldest first) with the test's anchor. An intact chain
 * whose newest reports were deleted links perfectly; only the anchor knows it is too short.
 */
export function tailAgainstAnchor(
  reports: readonly RestoreReport[],
  anchor: EvidenceAnchor,
): { problems: string[]; notes: string[] } {
  const anchored = `${anchor.report} (sequence ${anchor.sequence}, ${short(anchor.digest)})`;
  const newest = reports.at(-1);
  if (!newest) {
    return {
      problems: [
        `missing tail: no reports, but the test's evidence anchor names ${anchored}: the reports were deleted`,
      ],
      notes: [],
    };
  }
  const position = reports.findIndex((report) => report.spec.evidence?.digest === anchor.digest);
  if (position === reports.length - 1) return { problems: [], notes: [] };
  if (position >= 0) {
    return {
      problems: [],
      notes: [
        `the evidence anchor names ${anchored}; ${reports.length - 1 - position} newer report(s) were written after it was recorded`,
      ],
    };
  }
  const sequence = newest.spec.evidence?.sequence;
  const present = `${newest.metadata.name}${sequence === undefined ? '' : ` (sequence ${sequence})`}`;
  if (sequence !== undefined && sequence > anchor.sequence) {
    return {
      problems: [],
      notes: [`the evidence anchor (${anchored}) is older than the newest report ${present}`],
    };
  }
  if (sequence === anchor.sequence) {
    return {
      problems: [
        `replaced: the newest report ${present} has the anchor's sequence but not its digest; the test's evidence anchor names ${anchored}`,
      ],
      notes: [],
    };
  }
  const deleted =
    sequence === undefined ? 'the newest report(s)' : `${anchor.sequence - sequence} newest report(s)`;
  return {
    problems: [
      `missing tail: the test's evidence anchor names ${anchored}, which is not in the set; the newest report present is ${present}: ${deleted} were deleted`,
    ],
    notes: [],
  };
}
