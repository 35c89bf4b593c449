// A fixed number of slots for expensive renders (the PDFs). A request that finds every slot taken
// is refused at once with 503 pdf-busy and Retry-After, rather than queued: a queue would hold each
// waiting request's memory and its client's connection for as long as the renders before it.
import { ProblemError } from '../problem.js';

export class RenderSlots {
  private taken = 0;

  constructor(
    readonly size: number,
    private readonly retryAfterSeconds: number,
  ) {}

  get inUse(): number {
    return this.taken;
  }

  /** Runs `render` in a slot, or throws pdf-busy when none is free. */
  async run<T>(render: () => Promise<T>): Promise<T> {
    if (this.taken >= this.size) {
      throw new ProblemError(
        'pdf-busy',
        `${this.size} PDFs are being rendered; retry in ${this.retryAfterSeconds} seconds.`,
        { headers: { 'Retry-After': String(this.retryAfterSeconds) } },
      );
    }
    this.taken += 1;
    try {
      return await render();
    } finally {
      this.taken -= 1;
    }
  }
}
