import type { Store } from '@cg/store';

/**
 * Tells each held connection when its account stops being connected (disconnected, or waiting for a
 * new login), so its connection closes within `everyMs`: one pipelined read for all the accounts a
 * process holds, whatever their number.
 */
export class AccountWatch {
  private readonly held = new Map<string, { tenantId: string; accountId: string; gone: () => void }>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly store: Store,
    everyMs: number,
    onError: (error: unknown) => void,
  ) {
    this.timer = setInterval(() => {
      this.check().catch(onError);
    }, everyMs);
  }

  /** Calls `gone` once the account is no longer connected; answers how to stop watching it. */
  watch(tenantId: string, accountId: string, gone: () => void): () => void {
    const key = `${tenantId}\n${accountId}`;
    this.held.set(key, { tenantId, accountId, gone });
    return () => this.held.delete(key);
  }

  private async check(): Promise<void> {
    const entries = [...this.held.values()];
    const connected = await this.store.accounts.connected(entries);
    entries.forEach((entry, n) => {
      if (!connected[n]) entry.gone();
    });
  }

  close(): void {
    clearInterval(this.timer);
  }
}
