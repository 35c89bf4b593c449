// Errors the plugin reports. Exit codes follow the house style: 0 ok, 1 error, 2 usage,
// 3 the run completed but did not pass (trigger --wait).

export const EXIT_OK = 0;
export const EXIT_ERROR = 1;
export const EXIT_USAGE = 2;
export const EXIT_NOT_PASSED = 3;

/** A failure the user should read: printed as `error: <message>`, then one `hint: ...` line each. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly hints: readonly string[] = [],
    readonly exitCode: number = EXIT_ERROR,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** Bad command-line input, found before anything is sent: exit 2 and exactly one line. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, [], EXIT_USAGE);
    this.name = 'UsageError';
  }
}
