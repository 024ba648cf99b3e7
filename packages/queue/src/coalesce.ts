/**
 * Gathers items while one flush of them is on its way and sends the next ones together when it is
 * back: no timer, so a lone item goes at once, and under load one round trip carries many.
 */
export class Coalescer<T> {
  private pending: { item: T; done: (error?: unknown) => void }[] = [];
  private running: Promise<void> | undefined;

  constructor(
    private readonly flush: (items: T[]) => Promise<void>,
    private readonly max = 64,
  ) {}

  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ item, done: (error) => (error === undefined ? resolve() : reject(error)) });
      this.running ??= this.run().finally(() => {
        this.running = undefined;
      });
    });
  }

  /** Resolves once everything added so far is sent. */
  async drain(): Promise<void> {
    while (this.running) await this.running;
  }

  private async run(): Promise<void> {
    // Items added in the same turn of the event loop go together.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.pending.length > 0) {
      const taken = this.pending.splice(0, this.max);
      try {
        await this.flush(taken.map((p) => p.item));
        for (const p of taken) p.done();
      } catch (error) {
        for (const p of taken) p.done(error ?? new Error('flush failed'));
      }
    }
  }
}
