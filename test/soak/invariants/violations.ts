// Where every invariant reports a violation: printed at once (what, when, the seed to replay the
// fault schedule) and kept for the summary. The same violation seen again (a leaked sandbox on
// every poll) is recorded once, by its key.

export type InvariantName =
  | 'one-report-per-run'
  | 'run-slots'
  | 'sandbox-ttl'
  | 'evidence-chain'
  | 'api-reads'
  | 'no-crash';

export interface Violation {
  invariant: InvariantName;
  at: string;
  what: string;
  seed: number;
}

export class Violations {
  readonly list: Violation[] = [];
  private readonly seen = new Set<string>();

  constructor(
    private readonly seed: number,
    private readonly print: (line: string) => void = console.log,
  ) {}

  record(invariant: InvariantName, what: string, key: string = what): void {
    const id = `${invariant}\u0000${key}`;
    if (this.seen.has(id)) return;
    this.seen.add(id);
    const violation: Violation = { invariant, at: new Date().toISOString(), what, seed: this.seed };
    this.list.push(violation);
    this.print(`[soak] VIOLATION ${violation.invariant} at ${violation.at} (seed ${this.seed}): ${what}`);
  }

  count(invariant?: InvariantName): number {
    return invariant ? this.list.filter((violation) => violation.invariant === invariant).length : this.list.length;
  }
}
