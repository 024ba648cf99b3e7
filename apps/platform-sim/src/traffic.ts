/**
 * What the sandbox tracks per platform account: its own limits (requests in flight, a rolling
 * minute), the media-offer gap rule, and the observations reported by GET /_sim/observations.
 */

const WINDOW_SECONDS = 60;

/** Requests per second over the last 60 seconds, in 60 one-second buckets. */
export class RollingMinute {
  private readonly counts = new Uint32Array(WINDOW_SECONDS);
  private readonly seconds = new Float64Array(WINDOW_SECONDS).fill(-1);

  private count(nowSecond: number): number {
    let total = 0;
    for (let b = 0; b < WINDOW_SECONDS; b++) {
      if ((this.seconds[b] ?? -1) > nowSecond - WINDOW_SECONDS) total += this.counts[b] ?? 0;
    }
    return total;
  }

  /**
   * Counts a request when fewer than `limit` were accepted in the last minute and returns 0;
   * otherwise returns the seconds to wait until one slot frees up.
   */
  tryAdd(nowMs: number, limit: number): number {
    const nowSecond = Math.floor(nowMs / 1000);
    const total = this.count(nowSecond);
    if (total >= limit) {
      let remaining = total;
      for (let s = nowSecond - WINDOW_SECONDS + 1; s <= nowSecond; s++) {
        const b = s % WINDOW_SECONDS;
        if (this.seconds[b] === s) remaining -= this.counts[b] ?? 0;
        if (remaining < limit) return Math.max(1, s + WINDOW_SECONDS - nowSecond);
      }
      return WINDOW_SECONDS;
    }
    const b = nowSecond % WINDOW_SECONDS;
    if (this.seconds[b] !== nowSecond) {
      this.seconds[b] = nowSecond;
      this.counts[b] = 0;
    }
    this.counts[b] = (this.counts[b] ?? 0) + 1;
    return 0;
  }

  /** Takes back a request counted at `nowMs` that was then answered 429 or 5xx by a fault. */
  untake(nowMs: number): void {
    const nowSecond = Math.floor(nowMs / 1000);
    const b = nowSecond % WINDOW_SECONDS;
    if (this.seconds[b] === nowSecond && (this.counts[b] ?? 0) > 0)
      this.counts[b] = (this.counts[b] ?? 0) - 1;
  }
}

/** Limits and platform-side memory of one account (cleared by /_sim/reset only). */
export class AccountTraffic {
  inFlight = 0;
  readonly minute = new RollingMinute();
  lastMediaOfferAt: number | null = null;
}

export interface DuplicateCount {
  method: string;
  path: string;
  count: number;
}

/** cyrb53 (the platform's own check hash), used here to key write bodies without keeping them. */
export function cyrb53(text: string, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2_654_435_761);
    h2 = Math.imul(h2 ^ c, 1_597_334_677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2_246_822_507) ^ Math.imul(h2 ^ (h2 >>> 13), 3_266_489_909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2_246_822_507) ^ Math.imul(h1 ^ (h1 >>> 13), 3_266_489_909);
  return 4_294_967_296 * (2_097_151 & h2) + (h1 >>> 0);
}

/** Observations of one platform account since the last observations reset. */
export class AccountObservation {
  readonly requests = new Map<string, number>();
  /** Requests by the remote address they came from (an egress proxy's, through one). */
  readonly remoteAddresses = new Map<string, number>();
  readonly responses = new Map<string, number>();
  totalRequests = 0;
  maxInFlight = 0;
  served429 = 0;
  mediaOfferCalls = 0;
  minMediaOfferGapMs: number | null = null;
  /**
   * Realtime connections: authenticated (opened) and by the address they came from, the most at
   * once, refused by ws_drop, frames sent.
   */
  readonly realtime = {
    opened: 0,
    addresses: {} as Record<string, number>,
    maxAtOnce: 0,
    refused: 0,
    framesSent: 0,
    eventsSent: 0,
  };
  private lastMediaOfferAt: number | null = null;
  private readonly duplicates = new Map<string, DuplicateCount>();
  private readonly recentWrites = new Map<string, number>();

  constructor(
    readonly accountId: string,
    readonly username: string,
  ) {}

  request(key: string, remoteAddress: string): void {
    this.totalRequests += 1;
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
    this.remoteAddresses.set(remoteAddress, (this.remoteAddresses.get(remoteAddress) ?? 0) + 1);
  }

  response(status: string): void {
    this.responses.set(status, (this.responses.get(status) ?? 0) + 1);
    if (status === '429') this.served429 += 1;
  }

  mediaOfferCall(now: number): void {
    this.mediaOfferCalls += 1;
    if (this.lastMediaOfferAt !== null) {
      const gap = now - this.lastMediaOfferAt;
      this.minMediaOfferGapMs =
        this.minMediaOfferGapMs === null ? gap : Math.min(this.minMediaOfferGapMs, gap);
    }
    this.lastMediaOfferAt = now;
  }

  /** Records a write; returns true when the same method, path and body came within windowMs. */
  write(method: string, path: string, body: string, now: number, windowMs: number): boolean {
    for (const [key, at] of this.recentWrites) {
      if (now - at <= windowMs) break;
      this.recentWrites.delete(key);
    }
    const key = `${method} ${path} ${cyrb53(body)}`;
    const previous = this.recentWrites.get(key);
    this.recentWrites.delete(key);
    this.recentWrites.set(key, now);
    if (previous === undefined || now - previous > windowMs) return false;
    const label = `${method} ${path}`;
    const entry = this.duplicates.get(label);
    if (entry) entry.count += 1;
    else this.duplicates.set(label, { method, path, count: 1 });
    return true;
  }

  /** `current` is live (not an observation): the realtime side passes it in. */
  toJSON(realtimeCurrent = 0): Record<string, unknown> {
    return {
      username: this.username,
      requests: Object.fromEntries(this.requests),
      totalRequests: this.totalRequests,
      remoteAddresses: Object.fromEntries(this.remoteAddresses),
      responses: Object.fromEntries(this.responses),
      maxInFlight: this.maxInFlight,
      mediaOfferCalls: this.mediaOfferCalls,
      minMediaOfferGapMs: this.minMediaOfferGapMs,
      duplicates: [...this.duplicates.values()],
      served429: this.served429,
      realtime: {
        current: realtimeCurrent,
        ...this.realtime,
        maxAtOnce: Math.max(this.realtime.maxAtOnce, realtimeCurrent),
      },
    };
  }
}

export class Observations {
  private accounts = new Map<string, AccountObservation>();
  since = Date.now();
  requests = 0;
  unattributedRequests = 0;
  served429 = 0;
  duplicates = 0;
  faultsApplied = 0;
  resets = 0;
  /** Live realtime connections of an account (set by the realtime side). */
  realtimeCurrent: (accountId: string) => number = () => 0;

  account(accountId: string, username: string): AccountObservation {
    let observation = this.accounts.get(accountId);
    if (!observation) {
      observation = new AccountObservation(accountId, username);
      this.accounts.set(accountId, observation);
    }
    return observation;
  }

  find(accountId: string): AccountObservation | undefined {
    return this.accounts.get(accountId);
  }

  reset(): void {
    this.accounts = new Map();
    this.since = Date.now();
    this.requests = 0;
    this.unattributedRequests = 0;
    this.served429 = 0;
    this.duplicates = 0;
    this.faultsApplied = 0;
    this.resets = 0;
  }

  toJSON(filterAccountId: string | null = null): Record<string, unknown> {
    const accounts: Record<string, unknown> = {};
    for (const [id, observation] of this.accounts) {
      if (filterAccountId === null || filterAccountId === id)
        accounts[id] = observation.toJSON(this.realtimeCurrent(id));
    }
    return {
      since: this.since,
      accounts,
      totals: {
        requests: this.requests,
        unattributedRequests: this.unattributedRequests,
        served429: this.served429,
        duplicates: this.duplicates,
        faultsApplied: this.faultsApplied,
        connectionResets: this.resets,
        accounts: this.accounts.size,
      },
    };
  }
}
