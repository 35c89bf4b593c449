// rehearsal-license: the vendor's tool for license keys and licenses (and for tests).
//
//   rehearsal-license keygen --out-dir DIR [--kid ID]
//   rehearsal-license issue --key private.pem [--kid ID] --tier enterprise [--expires 2027-01-01]
//                           [--trial-ends 2026-07-01] [--feature x ...] [--sub ID] [--customer NAME]
//
// `issue` prints the compact JWS on stdout; put it in the Secret rehearsal-license (key
// "license") in rehearsal-system. Exit codes follow the house style: 0 ok, 1 error, 2 usage.

import yargs from 'yargs';
import { LICENSE_TIERS, type LicenseTier } from '../../protocol/license-claims.js';
import { generateLicenseKeyPair, issueLicense, parseInstant, readText } from './license-tool.js';

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  now(): Date;
}

class UsageError extends Error {}

export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let exitCode = 0;
  const parser = yargs([...argv])
    .scriptName('rehearsal-license')
    .usage('$0 <command> [options]')
    .command(
      'keygen',
      'create an Ed25519 key pair for signing licenses',
      (y) =>
        y
          .option('out-dir', {
            type: 'string',
            demandOption: true,
            describe: 'directory for private.pem, public.pem, public.jwk.json',
          })
          .option('kid', {
            type: 'string',
            describe: 'key id (default: first 16 characters of the JWK thumbprint)',
          }),
      async (args) => {
        const files = await generateLicenseKeyPair(args.outDir, args.kid);
        io.stdout(
          `kid: ${files.kid}\nprivate key: ${files.privateKeyPath} (keep secret)\npublic key: ${files.publicKeyPath}\npublic JWK: ${files.publicJwkPath}\n`,
        );
      },
    )
    .command(
      'issue',
      'issue a license and print it as a compact JWS',
      (y) =>
        y
          .option('key', { type: 'string', demandOption: true, describe: 'Ed25519 private key (PKCS#8 PEM)' })
          .option('kid', {
            type: 'string',
            describe: 'key id in the JWS header (default: derived from the key, as keygen does)',
          })
          .option('tier', { choices: LICENSE_TIERS, demandOption: true, describe: 'license tier' })
          .option('expires', {
            type: 'string',
            describe: 'expiry, YYYY-MM-DD (UTC midnight) or RFC 3339; default perpetual',
          })
          .option('trial-ends', {
            type: 'string',
            describe: 'end of the trial, YYYY-MM-DD or RFC 3339; makes a trial license',
          })
          .option('feature', {
            type: 'string',
            array: true,
            default: [] as string[],
            describe: 'extra feature flag (repeatable)',
          })
          .option('sub', { type: 'string', describe: 'licensee identifier' })
          .option('customer', { type: 'string', describe: 'licensee display name' }),
      async (args) => {
        let expires: Date | undefined;
        let trialEnds: Date | undefined;
        try {
          expires = args.expires === undefined ? undefined : parseInstant(args.expires, '--expires');
          trialEnds = args.trialEnds === undefined ? undefined : parseInstant(args.trialEnds, '--trial-ends');
        } catch (error) {
          throw new UsageError((error as Error).message);
        }
        const token = await issueLicense({
          privateKeyPem: await readText(args.key),
          kid: args.kid,
          tier: args.tier as LicenseTier,
          expires,
          trialEnds,
          features: args.feature.map(String),
          sub: args.sub,
          customer: args.customer,
          issuer: 'rehearsal-license',
          now: io.now(),
        });
        io.stdout(`${token}\n`);
      },
    )
    .demandCommand(1, 'a command is required')
    .strict()
    .help()
    .version(false)
    .exitProcess(false)
    .fail((message, error) => {
      // yargs calls this for usage errors (message) and for errors thrown by handlers (error).
      if (error && !(error instanceof UsageError)) throw error;
      throw new UsageError(error?.message ?? message);
    });
  try {
    await parser.parseAsync();
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`error: ${error.message}\n`);
      exitCode = 2;
    } else {
      io.stderr(`error: ${(error as Error).message}\n`);
      exitCode = 1;
    }
  }
  return exitCode;
}
