// The live progress of trigger --wait, on stderr (stdout keeps only the result, so -o json stays
// parseable). On a terminal: one line rewritten in place with a spinner and the elapsed time.
// Otherwise (CI logs, pipes, TERM=dumb): one plain line per change.
import type { CliIo } from '../io.js';
import { humanDuration } from './format.js';

const SPINNER = ['|', '/', '-', '\\'];

export class Progress {
  private last = '';
  private frame = 0;
  private drawn = false;

  constructor(
    private readonly io: CliIo,
    private readonly live: boolean,
    private readonly label: string,
    private readonly startedAt: number,
  ) {}

  static forIo(io: CliIo, label: string): Progress {
    return new Progress(io, io.stderrIsTTY && io.env.TERM !== 'dumb', label, io.now().getTime());
  }

  private elapsed(): string {
    return humanDuration(this.io.now().getTime() - this.startedAt);
  }

  update(stage: string): void {
    if (this.live) {
      const spinner = SPINNER[this.frame++ % SPINNER.length];
      this.io.stderr(`\r\u001b[2K${spinner} ${this.label}: ${stage} (${this.elapsed()})`);
      this.drawn = true;
    } else if (stage !== this.last) {
      this.io.stderr(`[${this.elapsed()}] ${this.label}: ${stage}\n`);
    }
    this.last = stage;
  }

  /** A line that stays (e.g. why live stages are unavailable). */
  note(text: string): void {
    this.clear();
    this.io.stderr(`${text}\n`);
  }

  /** Leaves the final stage on its own line. */
  finish(stage: string): void {
    this.clear();
    if (this.live || stage !== this.last) this.io.stderr(`[${this.elapsed()}] ${this.label}: ${stage}\n`);
    this.last = stage;
  }

  private clear(): void {
    if (this.live && this.drawn) this.io.stderr('\r\u001b[2K');
    this.drawn = false;
  }
}
