import { setTimeout as sleep } from 'node:timers/promises';
import { GatewayError } from '@cg/contract';
import { accountEvent, type PublishEvent } from '@cg/events';
import {
  type AuthEndpointName,
  type CallArgs,
  type PlatformClient,
  PlatformError,
} from '@cg/platform-client';
import { RetryableError } from '@cg/queue';
import {
  type AccountStore,
  accountSummary,
  type PlatformSessionState,
  randomId,
  type Store,
} from '@cg/store';
import type { Route } from './egress';

/** The platform's own clients fetch a new device id every 180 minutes. */
const DEVICE_ID_TTL_MS = 180 * 60_000;

/** How often a call renews a session the platform ends again at once before the job is retried. */
const MAX_RENEWALS = 2;
/**
 * How long the account waits when the platform ended each new session at once: every job of the
 * account would otherwise log in again and again, each in turn, as fast as the logins come back.
 */
const SESSIONS_FAILING_PAUSE_MS = 30_000;
/** How often a job waiting for another process's re-login of its account looks at the outcome. */
const RELOGIN_POLL_MS = 100;

/**
 * Platform sessions of connected accounts. A call that meets an expired session (401, or 400 code
 * 99) logs in again with the stored credentials and is repeated: the platform refused it before
 * doing anything, so repeating it is safe even for a write. One re-login of an account runs at a
 * time, in this process and across processes (`lockRelogin`), so a burst of jobs meeting the same
 * expiry logs in once (a second-factor account is sent one code, not one per worker).
 */
export class AccountSessions {
  private readonly relogins = new Map<string, Promise<PlatformSessionState>>();

  constructor(
    private readonly accounts: AccountStore,
    /** How long a re-login's lock lasts unless renewed (it is, while the login runs). */
    private readonly reloginLockMs: number,
    /**
     * Told once when this process marks an account as needing a new login; `refused`: the platform
     * refused its stored password (rather than asking for a second factor).
     */
    private readonly onReauthRequired: (
      tenantId: string,
      accountId: string,
      refused: boolean,
    ) => Promise<void> = async () => {},
  ) {}

  /** `beforeSend` runs right before each request leaves (write ledger, media-stats gap). */
  async call<T>(
    tenantId: string,
    accountId: string,
    /** The account's way to the platform (its egress proxy). */
    route: Route,
    endpoint: AuthEndpointName,
    args: CallArgs = {},
    beforeSend?: () => Promise<void>,
    /** The session the caller read already (saves a read); else it is read here. */
    known?: PlatformSessionState | null,
  ): Promise<T> {
    let session = known ?? (await this.accounts.session(tenantId, accountId));
    if (!session) throw reauthRequired();
    for (let renewals = 0; ; renewals++) {
      await beforeSend?.();
      try {
        const current = session;
        return await route.send(endpoint, (client) => client.call<T>(current, endpoint, args));
      } catch (error) {
        if (!isExpired(error)) throw error;
        // A session that still holds for the account's own profile was not ended: it is this call
        // the platform refuses, and only this job fails; no login is spent on it.
        if (endpoint !== 'accountMe' && (await this.holds(route, session)))
          throw new GatewayError(
            'UPSTREAM_ERROR',
            'the platform refuses this call for the account (401), though its session is valid',
          );
        // The platform ended the new session too, while this call was on its way: nothing says the
        // password is wrong, so the job is tried again later (the platform applied nothing), and the
        // whole account waits, as on a 429.
        if (renewals === MAX_RENEWALS) {
          throw new RetryableError(
            new GatewayError(
              'UPSTREAM_UNAVAILABLE',
              'the platform ended each new session of this account at once; try again later',
              SESSIONS_FAILING_PAUSE_MS / 1000,
            ),
            SESSIONS_FAILING_PAUSE_MS,
            true,
            'the platform ended each new session of the account at once',
          );
        }
        session = await this.relogin(tenantId, accountId, route, session.token);
      }
    }
  }

  /** Whether a session is good for the account's own profile, the cheapest call there is. */
  private async holds(route: Route, session: PlatformSessionState): Promise<boolean> {
    try {
      await route.send('accountMe', (client) => client.call(session, 'accountMe'));
      return true;
    } catch (error) {
      if (isExpired(error)) return false;
      throw error;
    }
  }

  private relogin(
    tenantId: string,
    accountId: string,
    route: Route,
    staleToken: string,
  ): Promise<PlatformSessionState> {
    const running = this.relogins.get(accountId);
    if (running) return running;
    const task = this.loginOnce(tenantId, accountId, route, staleToken).finally(() =>
      this.relogins.delete(accountId),
    );
    this.relogins.set(accountId, task);
    return task;
  }

  /** Logs in under the account's lock, or waits for the process that holds it and takes its outcome. */
  private async loginOnce(
    tenantId: string,
    accountId: string,
    route: Route,
    staleToken: string,
  ): Promise<PlatformSessionState> {
    const owner = randomId(16);
    const { accounts, reloginLockMs } = this;
    for (;;) {
      if (await accounts.lockRelogin(tenantId, accountId, owner, reloginLockMs)) {
        // Held while the login runs, however long its platform calls take; if this process dies, the
        // hold lapses after `reloginLockMs`.
        const hold = setInterval(() => {
          accounts.extendRelogin(tenantId, accountId, owner, reloginLockMs).catch(() => undefined);
        }, reloginLockMs / 3);
        try {
          const state = await accounts.loginState(tenantId, accountId);
          return renewedBy(state, staleToken) ?? (await this.loginAgain(tenantId, accountId, route, state!));
        } finally {
          clearInterval(hold);
          // A failed unlock lapses on its own; it must not turn a login done into a failure.
          await accounts.unlockRelogin(tenantId, accountId, owner).catch(() => undefined);
        }
      }
      const renewed = renewedBy(await accounts.loginState(tenantId, accountId), staleToken);
      if (renewed) return renewed;
      await sleep(RELOGIN_POLL_MS);
    }
  }

  private async loginAgain(
    tenantId: string,
    accountId: string,
    route: Route,
    state: NonNullable<LoginState>,
  ): Promise<PlatformSessionState> {
    const credentials = await this.accounts.credentials(tenantId, accountId);
    if (!credentials) throw disconnected();
    const current = state.session;
    const fresh = !current || Date.now() - current.deviceIdAt > DEVICE_ID_TTL_MS;
    const deviceId = fresh
      ? await route.send('deviceId', (client) => client.getDeviceId())
      : current.deviceId;
    const deviceIdAt = fresh ? Date.now() : current.deviceIdAt;
    let outcome: Awaited<ReturnType<PlatformClient['login']>>;
    try {
      outcome = await route.send('login', (client) => client.login({ ...credentials, deviceId }));
    } catch (error) {
      if (!(error instanceof PlatformError)) throw error;
      if (error.kind === 'invalid_credentials')
        return this.needsLogin(
          tenantId,
          accountId,
          state,
          'the platform no longer accepts the stored password',
          true,
        );
      // Transient (429, 5xx, timeouts): the job is retried. Anything else is the platform's, not the
      // caller's request's: the account stays connected.
      if (error.retry === 'retryable') throw error;
      throw new GatewayError(
        'UPSTREAM_ERROR',
        `the platform refused to renew this account's session${error.status ? ` (HTTP ${error.status})` : ''}; try again later`,
      );
    }
    if (outcome.kind === 'twofa')
      return this.needsLogin(
        tenantId,
        accountId,
        state,
        'the platform asks for a second factor to renew the session',
        false,
      );
    const session: PlatformSessionState = { token: outcome.session.token, deviceId, deviceIdAt };
    if (!(await this.accounts.saveSession(tenantId, accountId, session))) throw disconnected();
    return session;
  }

  /**
   * Marks the account as needing a new login, unless it was connected again while this re-login
   * ran: then the job goes on with that connection's session.
   */
  private async needsLogin(
    tenantId: string,
    accountId: string,
    state: NonNullable<LoginState>,
    why: string,
    refused: boolean,
  ): Promise<PlatformSessionState> {
    if (await this.accounts.markReauthRequired(tenantId, accountId, state.sealed)) {
      await this.onReauthRequired(tenantId, accountId, refused);
    } else {
      const now = await this.accounts.loginState(tenantId, accountId);
      if (now?.status === 'connected' && now.session) return now.session;
      if (!now) throw disconnected();
    }
    throw reauthRequired(`${why}: connect the account again`);
  }
}

type LoginState = Awaited<ReturnType<AccountStore['loginState']>>;

/**
 * The session to go on with if the account no longer needs this re-login: renewed by another job or
 * process, or connected again. Throws if it was disconnected or needs a person; undefined otherwise.
 */
function renewedBy(state: LoginState, staleToken: string): PlatformSessionState | undefined {
  if (!state) throw disconnected();
  if (state.status === 'reauth_required') throw reauthRequired();
  return state.session && state.session.token !== staleToken ? state.session : undefined;
}

function disconnected() {
  return new GatewayError('NOT_FOUND', 'the account was disconnected');
}

function isExpired(error: unknown): boolean {
  return (
    error instanceof PlatformError && (error.kind === 'unauthorized' || error.kind === 'session_missing')
  );
}

function reauthRequired(
  message = 'the platform session expired and could not be renewed: connect the account again',
) {
  return new GatewayError('REAUTH_REQUIRED', message);
}

/**
 * The sessions of a process whose platform calls time out after `platformTimeoutMs`, telling
 * `publish` of the accounts that need a new login (`reauthEvents`).
 */
export function accountSessions(
  store: Store,
  publish: PublishEvent,
  platformTimeoutMs: number,
): AccountSessions {
  // Renewed while the login runs; only a process that died holds it this long.
  const reloginLockMs = 2 * platformTimeoutMs + 5_000;
  return new AccountSessions(store.accounts, reloginLockMs, reauthEvents(store, publish));
}

/**
 * The events of an account this process marked as needing a new login (`accounts.reauth_required`,
 * after `accounts.authentication_failed` when its password was refused): one each per marking (the
 * record's time tells them apart), from the one process whose mark took.
 */
export function reauthEvents(store: Store, publish: PublishEvent) {
  return async (tenantId: string, accountId: string, refused: boolean): Promise<void> => {
    const account = await store.accounts.get(tenantId, accountId);
    if (!account) return;
    const summary = accountSummary(account);
    // The stored password refused: the authentication failed, and the account needs a new login.
    if (refused)
      await publish(tenantId, accountEvent('accounts.authentication_failed', summary, account.updatedAt));
    await publish(tenantId, accountEvent('accounts.reauth_required', summary, account.updatedAt));
  };
}
