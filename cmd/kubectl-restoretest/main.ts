// Entry point of kubectl-restoretest (bin/kubectl-restoretest starts it with Node 24).
import module from 'node:module';

// Reuse compiled code between invocations: a CLI pays module compilation on every start. The
// plugin is imported after this line, not statically: static imports are compiled before the
// module body runs, so they would never reach the cache (and in the krew bundle, whose main.mjs
// would hold the whole plugin, nothing would).
module.enableCompileCache?.();
const [{ hideBin }, { runCli }] = await Promise.all([import('yargs/helpers'), import('./cli.js')]);

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
