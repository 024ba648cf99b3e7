import type { Redis } from 'ioredis';
import { isAccountId } from './ids';
import type { StoreKeys } from './keys';
import { defineScripts, type Scripted } from './lua';

/**
 * What the gateway saw of each account, for `GET /accounts/{id}/status`: its latest platform success
 * and failure (written by the workers) and its realtime connection (written by the listeners), in one
 * hash per account beside its record (`StoreKeys.accountHealth`, the tenant's slot). Every write is
 * one script that writes only while the record exists (a late write never brings a disconnected
 * account back), and the record's removal deletes the hash.
 *
 * The platform outcomes are noted on every call, so they are throttled in the process: a success is
 * written at most once a second per account, a failure at most once a second per account and code,
 * and a change between the two is always written; nothing is awaited on the call's way (a lost note
 * costs a status a second's staleness, never a call).
 */

/** A platform call that failed, as its caller was told (never a secret: the contract's message). */
export interface PlatformFailureNote {
  /** The gateway's error code the caller got (`UPSTREAM_UNAVAILABLE`, `REAUTH_REQUIRED`, …). */
  code: string;
  message: string;
  /** Whether the gateway tries it again (a 429, the platform unavailable, a proxy failing). */
  retryable: boolean;
  /** The platform client's verdict (`rate_limited`, `unavailable`, …), when the platform answered. */
  kind?: string;
  /** The platform's HTTP status, when it answered one. */
  status?: number;
}

/** The health hash as read; times are Unix ms. */
export interface AccountHealth {
  lastSuccessAt: number | null;
  lastFailure: (PlatformFailureNote & { at: number }) | null;
  realtime: {
    /** When the connection (handed over between listeners without a gap) opened; null: never. */
    upAt: number | null;
    /** When it closed or first failed to open since it was last open; null while open. */
    downAt: number | null;
    /** Why it last closed or failed (`closed`, `failed`, `gone`, `rotate`, `closing`, `lost`). */
    downWhy: string | null;
  };
}

/** How often one process notes the same outcome of one account. */
const NOTE_EVERY_MS = 1_000;
/** Accounts whose last notes a process remembers before it forgets the old ones. */
const MAX_REMEMBERED = 10_000;

type Note = { kind: 'ok' | 'fail'; code: string; at: number };

export class AccountHealthStore {
  private readonly scripts: Scripted<'health_set' | 'realtime_up' | 'realtime_down'>;
  /** What this process last wrote for each account (`tenant\naccount`). */
  private readonly noted = new Map<string, Note>();

  constructor(
    private readonly redis: Redis,
    private readonly keys: StoreKeys,
    /** A note that could not be written (Redis away): the process may log it. */
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {
    this.scripts = defineScripts(redis, new URL('./lua/', import.meta.url), {
      'health-set': 2,
      'realtime-up': 2,
      'realtime-down': 2,
    });
  }

  /** A platform call of the account succeeded (throttled, not awaited). */
  platformOk(tenantId: string, accountId: string): void {
    if (!this.due(tenantId, accountId, 'ok', '')) return;
    this.write(tenantId, accountId, ['okAt', String(Date.now())]);
  }

  /** A platform call of the account failed (throttled, not awaited). */
  platformFailed(tenantId: string, accountId: string, failure: PlatformFailureNote): void {
    if (!this.due(tenantId, accountId, 'fail', failure.code)) return;
    this.write(tenantId, accountId, [
      'failAt',
      String(Date.now()),
      'failCode',
      failure.code,
      'failMessage',
      failure.message,
      'failRetryable',
      failure.retryable ? '1' : '0',
      'failKind',
      failure.kind ?? '',
      'failStatus',
      failure.status === undefined ? '' : String(failure.status),
    ]);
  }

  /**
   * The account's realtime connection is open (authenticated). It keeps its opening time when it was
   * handed over from another listener (`handedOver` reasons) within `handoverMs`.
   */
  async realtimeUp(tenantId: string, accountId: string, handoverMs: number): Promise<void> {
    const [record, health] = this.keysOf(tenantId, accountId);
    await this.scripts.realtime_up(record, health, Date.now(), handoverMs, HANDED_OVER.join(','));
  }

  /** It closed, or an attempt to open it failed; `why` says how (`AccountHealth.realtime.downWhy`). */
  async realtimeDown(tenantId: string, accountId: string, why: string): Promise<void> {
    const [record, health] = this.keysOf(tenantId, accountId);
    await this.scripts.realtime_down(record, health, Date.now(), why);
  }

  async read(tenantId: string, accountId: string): Promise<AccountHealth> {
    const fields = isAccountId(accountId)
      ? await this.redis.hgetall(this.keys.accountHealth(tenantId, accountId))
      : {};
    const ms = (name: string) => {
      const value = Number(fields[name]);
      return fields[name] && Number.isFinite(value) && value > 0 ? value : null;
    };
    const failAt = ms('failAt');
    return {
      lastSuccessAt: ms('okAt'),
      lastFailure:
        failAt === null
          ? null
          : {
              at: failAt,
              code: fields.failCode ?? '',
              message: fields.failMessage ?? '',
              retryable: fields.failRetryable === '1',
              ...(fields.failKind ? { kind: fields.failKind } : {}),
              ...(ms('failStatus') === null ? {} : { status: ms('failStatus') as number }),
            },
      realtime: { upAt: ms('rtUpAt'), downAt: ms('rtDownAt'), downWhy: fields.rtDownWhy || null },
    };
  }

  /** Whether this note is to be written: a change from the last one, or the same a second later. */
  private due(tenantId: string, accountId: string, kind: Note['kind'], code: string): boolean {
    const key = `${tenantId}\n${accountId}`;
    const now = Date.now();
    const last = this.noted.get(key);
    if (last && last.kind === kind && last.code === code && now - last.at < NOTE_EVERY_MS) return false;
    if (this.noted.size >= MAX_REMEMBERED) this.forgetOld(now);
    this.noted.set(key, { kind, code, at: now });
    return true;
  }

  /** Drops what no throttle needs any more (notes older than `NOTE_EVERY_MS`). */
  private forgetOld(now: number): void {
    for (const [key, note] of this.noted) if (now - note.at >= NOTE_EVERY_MS) this.noted.delete(key);
  }

  private write(tenantId: string, accountId: string, fields: string[]): void {
    const [record, health] = this.keysOf(tenantId, accountId);
    this.scripts.health_set(record, health, ...fields).catch((error: unknown) => {
      // Not written: the next note of the account is (the throttle forgets this one).
      this.noted.delete(`${tenantId}\n${accountId}`);
      this.onError(error);
    });
  }

  private keysOf(tenantId: string, accountId: string): [string, string] {
    return [this.keys.account(tenantId, accountId), this.keys.accountHealth(tenantId, accountId)];
  }
}

/**
 * The ways a listener lets go of a connection for another listener to take at once (its hold rotated,
 * the process stopping, its lease lost): the account's connection counts as open since it first opened.
 */
export const HANDED_OVER = ['rotate', 'closing', 'lost'] as const;
