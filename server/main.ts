// Composition root of the rehearsal-api process: config → logger → server (caches, engine on the
// leader, HTTP API). Stops cleanly on SIGINT/SIGTERM: the lease is released so a standby takes over.
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { createRehearsal } from './app/rehearsal.js';

async function main(): Promise<number> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`rehearsal: ${error.message}`);
      return 2;
    }
    throw error;
  }
  const log = createLogger(config.logLevel);
  const rehearsal = createRehearsal(config, log);
  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    await rehearsal.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  await rehearsal.start();
  log.info({ port: rehearsal.port(), namespace: config.namespace }, 'rehearsal started');
  return -1;
}

main().then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    console.error('rehearsal: failed to start:', error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
