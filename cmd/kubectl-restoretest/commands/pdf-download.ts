// Downloads one of the licensed PDFs (compliance, per-test report) to a file. A 402 names the
// license tier (read from GET /api/v1/license, best effort) so the user knows what is missing.
import { writeFile } from 'node:fs/promises';
import type { RehearsalApi } from '../api.js';
import { LicenseRequiredError } from '../api-errors.js';
import { CliError } from '../errors.js';
import type { CommandContext } from './command.js';

export async function downloadPdf(
  context: CommandContext,
  api: RehearsalApi,
  request: { path: string; query: Record<string, string | number | undefined> },
  file: string,
  feature: string,
): Promise<number> {
  let pdf: Buffer;
  try {
    pdf = await api.download(request.path, request.query);
  } catch (error) {
    if (!(error instanceof LicenseRequiredError)) throw error;
    let tier = 'unknown';
    try {
      tier = (await api.license()).tier;
    } catch {
      // the tier is a courtesy; the 402 itself is the answer
    }
    throw new CliError(`the license (tier ${tier}) does not include ${feature}`, [
      error.detail,
      'kubectl restoretest license shows the tier and its features',
    ]);
  }
  try {
    await writeFile(file, pdf);
  } catch (error) {
    throw new CliError(`cannot write ${file}: ${(error as Error).message}`);
  }
  context.io.stdout(`wrote ${file} (${pdf.length} bytes)\n`);
  return 0;
}
