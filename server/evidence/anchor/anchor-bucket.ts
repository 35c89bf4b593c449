// The write-once store anchors go to, as the anchor writer and the audit see it: an S3 bucket with
// Object Lock. Under Object Lock a bucket is versioned: a PUT to an existing key adds a version
// and a plain DELETE adds a delete marker, while every locked version stays readable until its
// retention ends, whatever its key now shows. So anchors are read by version, never by key alone.
// The composition root adapts the archive's S3 client to it (app/rehearsal-anchors.ts).
export interface AnchorObjectVersion {
  key: string;
  versionId: string | undefined;
  deleteMarker: boolean;
}

export interface AnchorBucket {
  /** Whether the bucket has Object Lock enabled (else no anchor is written to it). */
  objectLockEnabled(): Promise<boolean>;
  /** Writes an object locked in compliance mode until `retainUntil`; its version id when the store gives one. */
  putLocked(key: string, body: Buffer, retainUntil: Date): Promise<string | undefined>;
  /** Every version and delete marker under the prefix. */
  versions(prefix: string): Promise<AnchorObjectVersion[]>;
  /** One version's bytes (the current one without a version id), undefined when absent. */
  get(key: string, versionId: string | undefined, maxBytes: number): Promise<Buffer | undefined>;
  /** Where it is, for messages ("bucket at endpoint"). */
  readonly where: string;
}
