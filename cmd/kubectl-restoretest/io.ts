// Everything the plugin touches outside its own code, injectable so tests run the CLI in-process
// with a fixed clock, captured output and their own environment (main.ts wires the real ones).

export type Env = Readonly<Record<string, string | undefined>>;

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Whether stdout / stderr are terminals (colour, the updating progress line). */
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  env: Env;
  now(): Date;
  sleep(ms: number): Promise<void>;
  /** The whole of standard input (for `-f -`). */
  readStdin(): Promise<string>;
  /** Resolves when the user stops a long-running command (default: SIGINT or SIGTERM). */
  untilInterrupted?(): Promise<void>;
}

/** Colour only for a terminal, never with NO_COLOR (https://no-color.org) or TERM=dumb. */
export function colorEnabled(isTTY: boolean, env: Env): boolean {
  if (!isTTY) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return env.TERM !== 'dumb';
}
