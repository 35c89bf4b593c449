// The annotations with which the server marks a RestoreReport it serves from its evidence archive
// (object storage) rather than from etcd. Unsigned bookkeeping: the plugin's `verify` reads them
// to name the archive segment of a report that fails, and to fail on problems the server found in
// the segment itself (its manifest signature, content digest or segment chain).

/** The archive segment (object key) a report was read from. */
export const ANNOTATION_SEGMENT = 'rehearsal.dev/archive-segment';
/** JSON array of the problems the server found in that segment. */
export const ANNOTATION_PROBLEMS = 'rehearsal.dev/archive-problems';
