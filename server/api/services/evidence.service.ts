// The published evidence verification keys (current first, then retired).
import type { EvidencePublicKey } from '../dto.js';
import type { EvidenceKeySource } from '../ports.js';
import { ProblemError } from '../problem.js';

export class EvidenceService {
  constructor(private readonly keysSource?: EvidenceKeySource) {}

  keys(): EvidencePublicKey[] {
    const keys = this.keysSource?.publicKeys() ?? [];
    if (keys.length === 0) {
      throw new ProblemError(
        'signing-key-unavailable',
        'No evidence key has been loaded or published yet; retry shortly.',
        { headers: { 'Retry-After': '5' } },
      );
    }
    return keys.map((key) => ({
      keyId: key.keyId,
      algorithm: key.algorithm,
      publicKeyPem: key.publicKeyPem,
      createdAt: key.createdAt,
      status: key.status,
      ...(key.retiredAt ? { retiredAt: key.retiredAt } : {}),
    }));
  }
}
