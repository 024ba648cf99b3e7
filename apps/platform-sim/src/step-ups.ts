import { randomBytes } from 'node:crypto';
import { ErrorCode, notFound, SimError } from './errors';

/** A token of one creator, usable until `expiresAt` (Unix ms). */
interface Held {
  creator: number;
  expiresAt: number;
}

/** Both maps are swept of expired tokens once they hold this many. */
const SWEEP_AT = 1000;

/**
 * The second factor of sensitive actions (GUESS, docs/upstream-decisions.md, step-up): a challenge
 * (`POST /twofa/session`) is verified with the account's code (`POST /twofa/session/verify`), which
 * answers a grant; a payout deletion spends the grant with the same code. Both are random tokens,
 * bound to their creator, single use and short lived (`twofaTokenTtlMs`, read when each is made).
 */
export class StepUps {
  private readonly challenges = new Map<string, Held>();
  private readonly grants = new Map<string, Held>();

  /** A new challenge of `creator`: its token. */
  challenge(creator: number, ttlMs: number, now: number): string {
    return issue(this.challenges, creator, ttlMs, now);
  }

  /**
   * Checks `code` against a challenge: another creator's or an unknown token is 404; an expired one
   * 400 code 3 (it is dropped); a wrong code 400 code 2 (the challenge stays usable). A right code
   * spends the challenge and answers a grant.
   */
  verify(creator: number, token: string, code: string, expected: string, ttlMs: number, now: number): string {
    const challenge = this.challenges.get(token);
    if (!challenge || challenge.creator !== creator) throw notFound('twofa session');
    if (challenge.expiresAt <= now) {
      this.challenges.delete(token);
      throw new SimError(400, ErrorCode.twofaTokenExpired, 'Two-factor token expired.');
    }
    if (code !== expected) throw new SimError(400, ErrorCode.wrongTwofaCode, 'Invalid two-factor code.');
    this.challenges.delete(token);
    return issue(this.grants, creator, ttlMs, now);
  }

  /** Whether `token` is a live grant of `creator` (unknown, spent, expired or another's: 400 code 3). */
  checkGrant(creator: number, token: string, now: number): void {
    const grant = this.grants.get(token);
    if (!grant || grant.creator !== creator || grant.expiresAt <= now)
      throw new SimError(400, ErrorCode.twofaTokenExpired, 'Two-factor token expired.');
  }

  /** Spends a grant: the action it allowed was done. */
  spendGrant(token: string): void {
    this.grants.delete(token);
  }

  clear(): void {
    this.challenges.clear();
    this.grants.clear();
  }
}

function issue(tokens: Map<string, Held>, creator: number, ttlMs: number, now: number): string {
  if (tokens.size >= SWEEP_AT)
    for (const [key, held] of tokens) if (held.expiresAt <= now) tokens.delete(key);
  const token = randomBytes(24).toString('base64url');
  tokens.set(token, { creator, expiresAt: now + ttlMs });
  return token;
}
