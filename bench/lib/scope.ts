/**
 * What a scenario started, stopped in reverse order when it ends however it ends, so a failed
 * scenario leaves no process running and no keys behind.
 */
export class Scope {
  private readonly cleanups: Array<() => Promise<unknown>> = [];

  defer(cleanup: () => Promise<unknown>): void {
    this.cleanups.push(cleanup);
  }

  async close(): Promise<void> {
    for (const cleanup of this.cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        process.stderr.write(`cleanup failed: ${error instanceof Error ? error.message : String(error)}\n`);
      }
    }
    this.cleanups.length = 0;
  }
}
