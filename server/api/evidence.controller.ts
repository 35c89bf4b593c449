// GET /api/v1/evidence/keys: the public keys that verify Rehearsal's evidence (RestoreReport
// spec.evidence, PDF attestations), current and retired. The same keys are published in the
// ConfigMap rehearsal-evidence-public-keys, so reading them needs exactly `get` on that ConfigMap.
import { Controller, Extension, Get, OperationId, Response, Route, Security, Tags } from '@tsoa/runtime';
import { GET_EVIDENCE_KEYS, RBAC_EXTENSION } from './auth/permissions.js';
import type { ApiContext } from './context.js';
import type { EvidencePublicKey } from './dto.js';
import type { ProblemDetails } from './problem.js';

@Route('api/v1/evidence')
@Tags('Evidence')
@Security('kubernetes')
@Response<ProblemDetails>(401, 'No bearer token, or the cluster rejected it')
@Response<ProblemDetails>(403, 'The caller lacks a permission; missingPermissions names it')
@Response<ProblemDetails>(500, 'Unexpected server error (details are only logged)')
@Response<ProblemDetails>(503, 'The signing key has not been loaded yet (signing-key-unavailable)')
export class EvidenceController extends Controller {
  constructor(private readonly api: ApiContext) {
    super();
  }

  /**
   * Every public key that verifies evidence: the current key (which signs new RestoreReports and
   * PDFs) first, then keys retired by a rotation, which still verify what they signed. keyId is
   * the first 16 hex characters of SHA-256 over the key's SPKI DER encoding, as in
   * spec.evidence.keyId and the PDF attestation.
   * @summary Evidence verification keys
   */
  @Get('keys')
  @OperationId('listEvidenceKeys')
  @Extension(RBAC_EXTENSION, [GET_EVIDENCE_KEYS])
  public listEvidenceKeys(): EvidencePublicKey[] {
    return this.api.evidence.keys();
  }
}
