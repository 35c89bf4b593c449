// Entry point of kubectl-restoretest (bin/kubectl-restoretest starts it with Node 24).
import module from 'node:module';
import { hideBin } from 'yargs/helpers';
import { runCli } from './cli.js';

// Reuse compiled code between invocations: a CLI pays module compilation on every start.
module.enableCompileCache?.();

process.exitCode = await runCli(hideBin(process.argv), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stdoutIsTTY: process.stdout.isTTY === true,
  stderrIsTTY: process.stderr.isTTY === true,
  env: process.env,
  now: () => new Date(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
});
