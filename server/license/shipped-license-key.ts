// The vendor's license-verification public key shipped with Rehearsal (license-keys/ at the package
// root, copied into the image at /app/license-keys). It is what the server trusts when
// REHEARSAL_LICENSE_PUBLIC_KEYS is not set. Its private half never enters the repository
// (docs/install.md, "Licenses"). Found next to the sources (tsx, Jest) or the compiled dist/.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const SHIPPED_LICENSE_KEY = 'license-keys/rehearsal-vendor.jwk.json';
const CANDIDATES = [`../../${SHIPPED_LICENSE_KEY}`, `../../../${SHIPPED_LICENSE_KEY}`];

/** Absolute path of the shipped public key, or undefined when this build has none. */
export function shippedLicenseKeyFile(): string | undefined {
  return CANDIDATES.map((candidate) => fileURLToPath(new URL(candidate, import.meta.url))).find((path) =>
    existsSync(path),
  );
}
