// Entry point of rehearsal-license. Run from the repository with
//   npm exec -- tsx cmd/rehearsal-license/main.ts keygen --out-dir ./keys
import { hideBin } from 'yargs/helpers';
import { runCli } from './cli.js';

process.exitCode = await runCli(hideBin(process.argv), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  now: () => new Date(),
});
