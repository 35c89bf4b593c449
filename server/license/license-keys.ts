// Loads the license-verification public keys the deployment trusts (REHEARSAL_LICENSE_PUBLIC_KEYS):
// each file is a JWK, a JWK Set, or a PEM named with `kid=path`. A missing or malformed file is a
// start-up error, never a silent downgrade to community: an operator who configured keys expects
// them to be used.

import { readFile } from 'node:fs/promises';
import {
  importLicensePublicKeys,
  parseLicensePublicKeyText,
  type LicenseKeyRing,
  type LicensePublicKeyInput,
} from './license-verifier.js';

export interface LicenseKeyFile {
  file: string;
  kid?: string;
}

export async function loadLicenseKeyRing(files: readonly LicenseKeyFile[]): Promise<LicenseKeyRing> {
  const inputs: LicensePublicKeyInput[] = [];
  for (const { file, kid } of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new Error(
        `license public key file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
        {
          cause: error,
        },
      );
    }
    try {
      inputs.push(...parseLicensePublicKeyText(text, kid));
    } catch (error) {
      const hint =
        text.trim().startsWith('-----BEGIN') && !kid
          ? ' (write it as kid=path in REHEARSAL_LICENSE_PUBLIC_KEYS)'
          : '';
      throw new Error(`license public key file ${file}: ${(error as Error).message}${hint}`, {
        cause: error,
      });
    }
  }
  return importLicensePublicKeys(inputs);
}
