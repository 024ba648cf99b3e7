import { randomBytes } from 'node:crypto';
import { ErrorCode, SimError } from './errors';
import { Kind, type RuntimeIds } from './ids';
import type { Session } from './records';
import type { World } from './world/world';

export const SESSION_STATUS_ACTIVE = 2;
/**
 * Sessions kept per account; a login beyond this ends the oldest one (its token then gets 401), as
 * platforms cap concurrent sessions. Bounds memory when a client logs in again and again.
 */
export const MAX_SESSIONS_PER_ACCOUNT = 100;

export interface SessionEntry {
  session: Session;
  creator: number;
}

interface PendingTwofa {
  creator: number;
  deviceId: string | null;
  expiresAt: number;
}

/**
 * Login sessions and second-factor tokens. A token is base64 of `<sessionId>:1:2:<hash>`, like the
 * platform's. Tokens stay valid until a sessionExpiry fault, the sessionTtlMs option or a reset.
 */
export class Sessions {
  private readonly byToken = new Map<string, SessionEntry>();
  private readonly byCreator = new Map<number, Set<string>>();
  private readonly pendingTwofa = new Map<string, PendingTwofa>();
  /** Told of every token that stops working (the realtime side closes its connections). */
  private readonly endListeners: ((token: string) => void)[] = [];

  constructor(
    private readonly world: World,
    private readonly ids: RuntimeIds,
  ) {}

  create(creator: number, deviceId: string | null, ip: string): Session {
    const identity = this.world.identity(creator);
    const id = this.ids.next(Kind.session);
    const token = Buffer.from(`${id}:1:2:${randomBytes(16).toString('hex')}`).toString('base64');
    const now = Date.now();
    const session: Session = {
      id,
      token,
      accountId: identity.accountId,
      deviceId,
      status: SESSION_STATUS_ACTIVE,
      ip,
      metadata: null,
      checkToken: null,
      createdAt: now,
      lastUsedAt: now,
    };
    this.byToken.set(token, { session, creator });
    let tokens = this.byCreator.get(creator);
    if (!tokens) {
      tokens = new Set();
      this.byCreator.set(creator, tokens);
    }
    tokens.add(token);
    if (tokens.size > MAX_SESSIONS_PER_ACCOUNT) {
      const oldest = tokens.values().next().value;
      if (oldest !== undefined) this.revoke(oldest, creator);
    }
    return session;
  }

  /** The live session of a token, or null (unknown, revoked or older than ttlMs). */
  lookup(token: string, now: number, ttlMs: number | null): SessionEntry | null {
    const entry = this.byToken.get(token);
    if (!entry) return null;
    if (ttlMs !== null && now - entry.session.createdAt > ttlMs) {
      this.revoke(token, entry.creator);
      return null;
    }
    entry.session.lastUsedAt = now;
    return entry;
  }

  onEnd(listener: (token: string) => void): void {
    this.endListeners.push(listener);
  }

  private ended(tokens: Iterable<string>): void {
    for (const token of tokens) for (const listener of this.endListeners) listener(token);
  }

  private revoke(token: string, creator: number): void {
    this.byToken.delete(token);
    this.byCreator.get(creator)?.delete(token);
    this.ended([token]);
  }

  /** Ends every session of one creator (or of all, when creator is null). Returns how many. */
  expire(creator: number | null): number {
    if (creator === null) {
      const tokens = [...this.byToken.keys()];
      this.byToken.clear();
      this.byCreator.clear();
      this.ended(tokens);
      return tokens.length;
    }
    const tokens = this.byCreator.get(creator);
    if (!tokens) return 0;
    for (const token of tokens) this.byToken.delete(token);
    this.byCreator.delete(creator);
    this.ended(tokens);
    return tokens.size;
  }

  startTwofa(creator: number, deviceId: string | null, ttlMs: number): { token: string; email: string } {
    const now = Date.now();
    if (this.pendingTwofa.size > 1000) {
      for (const [key, pending] of this.pendingTwofa)
        if (pending.expiresAt <= now) this.pendingTwofa.delete(key);
    }
    const token = randomBytes(24).toString('base64url');
    this.pendingTwofa.set(token, { creator, deviceId, expiresAt: now + ttlMs });
    return { token, email: this.world.identity(creator).maskedEmail };
  }

  /** Creator a pending second-factor token belongs to (for attribution), or null. */
  twofaCreator(token: string): number | null {
    return this.pendingTwofa.get(token)?.creator ?? null;
  }

  /** Completes a login: wrong code keeps the token usable; success consumes it. */
  completeTwofa(token: string, code: string, ip: string): Session {
    const pending = this.pendingTwofa.get(token);
    if (!pending || pending.expiresAt <= Date.now()) {
      if (pending) this.pendingTwofa.delete(token);
      throw new SimError(400, ErrorCode.twofaTokenExpired, 'Two-factor token expired.');
    }
    if (code !== this.world.identity(pending.creator).twofaCode) {
      throw new SimError(400, ErrorCode.wrongTwofaCode, 'Invalid two-factor code.');
    }
    this.pendingTwofa.delete(token);
    return this.create(pending.creator, pending.deviceId, ip);
  }

  clear(): void {
    const tokens = [...this.byToken.keys()];
    this.byToken.clear();
    this.byCreator.clear();
    this.pendingTwofa.clear();
    this.ended(tokens);
  }
}
