/**
 * Gathers items while a flush of them is on its way and sends the next ones together when it is
 * back: no timer, so a lone item goes at once, and under load one round trip carries many. A burst
 * does not queue behind one flush: once a quarter of `max` is waiting, another flush goes out beside
 * it, up to `parallel` at a time.
 */
export class Coalescer<T> {
  private pending: { item: T; done: (error?: unknown) => void }[] = [];
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly flush: (items: T[]) => Promise<void>,
    private readonly max = 64,
    private readonly parallel = 4,
  ) {}

  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ item, done: (error) => (error === undefined ? resolve() : reject(error)) });
      this.pump();
    });
  }

  /** Resolves once everything added so far is sent. */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running);
  }

  private pump(): void {
    const idle = this.running.size === 0;
    const burst = this.pending.length >= Math.ceil(this.max / 4) && this.running.size < this.parallel;
    if (!idle && !burst) return;
    const run = this.run().finally(() => {
      this.running.delete(run);
      if (this.pending.length > 0) this.pump();
    });
    this.running.add(run);
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
