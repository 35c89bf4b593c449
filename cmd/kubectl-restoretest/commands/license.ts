// license: the tier the server runs with (GET /api/v1/license), its expiry and features.
import type { LicenseResponse } from '../api.js';
import { printStructured } from '../output/print.js';
import { renderTable } from '../output/table.js';
import { defineCommand } from './command.js';

function trial(license: LicenseResponse): string {
  if (!license.isTrialing) return license.trialEndsAt ? 'ended' : 'no';
  return `${license.trialDaysLeft}d left`;
}

function expires(license: LicenseResponse): string {
  if (!license.expiresAt) return '<never>';
  return license.isExpired ? `${license.expiresAt} (expired)` : license.expiresAt;
}

export const licenseCommand = defineCommand({
  command: 'license',
  describe: 'Show the Rehearsal license: tier, expiry, trial and licensed features',
  outputs: ['table', 'json', 'yaml'],
  examples: [
    ['$0 license', 'tier, expiry, trial state and features'],
    ['$0 license -o json', "the API's LicenseResponse"],
  ],
  async run(context) {
    const session = await context.session();
    const license = await session.api.license();
    if (await printStructured(context, license)) return 0;
    context.io.stdout(
      renderTable(
        ['TIER', 'EXPIRES', 'TRIAL', 'FEATURES'],
        [[license.tier, expires(license), trial(license), license.features.length ? license.features.join(',') : '<none>']],
      ),
    );
    return 0;
  },
});
