// Runs the Velero SIMULATOR (test/velero/simulator.ts — for tests and the demo only, not Velero)
// against a cluster until SIGINT/SIGTERM:
//   npm exec -- tsx test/velero/simulator-main.ts --kubeconfig X [--namespace velero]
//     [--step-delay-ms 400] [--poll-interval-ms 250]
import { parseArgs } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { VeleroSimulator } from './simulator.js';

const usage =
  'usage: tsx test/velero/simulator-main.ts [--kubeconfig PATH] [--namespace velero] ' +
  '[--step-delay-ms 400] [--poll-interval-ms 250]';

function numberOption(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0) throw new Error(`--${name} must be a non-negative number`);
  return parsed;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      kubeconfig: { type: 'string' },
      namespace: { type: 'string', short: 'n', default: 'velero' },
      'step-delay-ms': { type: 'string' },
      'poll-interval-ms': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  const kubeConfig = new KubeConfig();
  if (values.kubeconfig) kubeConfig.loadFromFile(values.kubeconfig);
  else kubeConfig.loadFromDefault();

  const simulator = new VeleroSimulator(kubeConfig, {
    namespace: values.namespace,
    stepDelayMs: numberOption(values['step-delay-ms'], 'step-delay-ms'),
    pollIntervalMs: numberOption(values['poll-interval-ms'], 'poll-interval-ms'),
    log: (line) => console.error(`${new Date().toISOString()} velero-simulator ${line}`),
  });
  await simulator.start();

  await new Promise<void>((resolve) => {
    const shutdown = (signal: string) => {
      console.error(`velero-simulator: ${signal}, stopping`);
      resolve();
    };
    process.once('SIGINT', () => shutdown('SIGINT'));
    process.once('SIGTERM', () => shutdown('SIGTERM'));
  });
  await simulator.stop();
}

main().catch((error: unknown) => {
  console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
