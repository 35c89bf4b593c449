// A sandbox namespace's claim: how a replica that takes over a run tells the sandbox an earlier
// leader created for that run from a namespace someone else put there (issue 31's soak: a leader
// killed between creating a sandbox and recording its UID in status.currentRun left the next leader
// a namespace it could not recognise, so the run failed SandboxNamespaceTaken and the namespace was
// kept for good).
//
// Labels cannot be that proof: a cluster administrator may set the reserved sandbox label too
// (deploy/base/sandbox-label-admission.yaml), and decision 0009 never adopts a namespace on its
// labels. The claim is a signature by the installation's evidence key (Ed25519, shared by every
// replica: evidence-keys.ts) over the namespace's name, the run and the test's UID, written as an
// annotation when the namespace is created. Only a holder of the private key can make one, and a
// claim copied onto another namespace, run or test incarnation does not verify. Keys rotated since
// (the published `retired` keys) still verify a claim made before the rotation.
import type { KeyObject } from 'node:crypto';
import { verifySignature } from '../../../protocol/evidence/signature.js';
import { ANNOTATION_SANDBOX_CLAIM } from '../../domain/resources/resources.js';
import type { EvidenceSigner } from '../../evidence/signing-key.js';

/** The keys a SandboxManager signs and verifies claims with (EvidenceKeyStore). */
export interface SandboxClaimKeys {
  /** The current signing key; undefined while none is loaded (the sandbox is created without a claim). */
  signer(): EvidenceSigner | undefined;
  /** Every published key (current and retired), by key id. */
  keyRing(): ReadonlyMap<string, KeyObject>;
}

/** What a claim is about: the namespace, and the run and test incarnation it was created for. */
export interface ClaimSubject {
  sandbox: string;
  runId: string;
  testNamespace: string;
  testName: string;
  testUid: string;
}

/** The signed text. Versioned and domain-separated, so no other signed evidence can pass for it. */
export function claimMessage(subject: ClaimSubject): string {
  return [
    'rehearsal.dev/sandbox-claim v1',
    `namespace=${subject.sandbox}`,
    `run=${subject.runId}`,
    `test=${subject.testNamespace}/${subject.testName}`,
    `test-uid=${subject.testUid}`,
  ].join('\n');
}

/** The annotation to create the namespace with; none without a key or a test UID to bind it to. */
export function claimAnnotation(keys: SandboxClaimKeys | undefined, subject: ClaimSubject): Record<string, string> {
  const signer = keys?.signer();
  if (!signer || !subject.testUid) return {};
  return { [ANNOTATION_SANDBOX_CLAIM]: `${signer.keyId}:${signer.sign(claimMessage(subject))}` };
}

/** Whether the namespace's claim annotation is a valid signature for exactly this subject. */
export function verifyClaim(
  keys: SandboxClaimKeys | undefined,
  annotations: Readonly<Record<string, string>> | undefined,
  subject: ClaimSubject,
): boolean {
  const claim = annotations?.[ANNOTATION_SANDBOX_CLAIM];
  if (!keys || !claim || !subject.testUid) return false;
  const separator = claim.indexOf(':');
  const key = separator > 0 ? keys.keyRing().get(claim.slice(0, separator)) : undefined;
  return key !== undefined && verifySignature(claimMessage(subject), claim.slice(separator + 1), key);
}
