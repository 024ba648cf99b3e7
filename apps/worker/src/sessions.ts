import { GatewayError } from '@cg/contract';
import type { CallArgs } from '@cg/operations';
import { type AuthEndpointName, type PlatformClient, PlatformError } from '@cg/platform-client';
import type { AccountStore, PlatformSessionState } from '@cg/store';

/** The platform's own clients fetch a new device id every 180 minutes. */
const DEVICE_ID_TTL_MS = 180 * 60_000;

/**
 * Platform sessions of connected accounts. A call that meets an expired session (401, or 400 code
 * 99) logs in again once with the stored credentials and is repeated: the platform refused it before
 * doing anything, so repeating it is safe even for a write. Re-logins of one account in this process
 * are shared, so a burst of jobs meeting the same expiry logs in once.
 */
export class AccountSessions {
  private readonly relogins = new Map<string, Promise<PlatformSessionState>>();

  constructor(
    private readonly client: PlatformClient,
    private readonly accounts: AccountStore,
  ) {}

  /** `beforeSend` runs right before each request leaves (write ledger, media-stats gap). */
  async call<T>(
    tenantId: string,
    accountId: string,
    endpoint: AuthEndpointName,
    args: CallArgs = {},
    beforeSend?: () => Promise<void>,
    /** The session the caller read already (saves a read); else it is read here. */
    known?: PlatformSessionState | null,
  ): Promise<T> {
    const session = known ?? (await this.accounts.session(tenantId, accountId));
    if (!session) throw reauthRequired();
    await beforeSend?.();
    try {
      return await this.client.call<T>(session, endpoint, args);
    } catch (error) {
      if (!isExpired(error)) throw error;
      const renewed = await this.relogin(tenantId, accountId, session.token);
      await beforeSend?.();
      try {
        return await this.client.call<T>(renewed, endpoint, args);
      } catch (again) {
        if (isExpired(again)) {
          await this.accounts.markReauthRequired(tenantId, accountId);
          throw reauthRequired();
        }
        throw again;
      }
    }
  }

  private relogin(tenantId: string, accountId: string, staleToken: string): Promise<PlatformSessionState> {
    const running = this.relogins.get(accountId);
    if (running) return running;
    const task = this.loginAgain(tenantId, accountId, staleToken).finally(() =>
      this.relogins.delete(accountId),
    );
    this.relogins.set(accountId, task);
    return task;
  }

  private async loginAgain(
    tenantId: string,
    accountId: string,
    staleToken: string,
  ): Promise<PlatformSessionState> {
    const current = await this.accounts.session(tenantId, accountId);
    // Another process may have renewed it already.
    if (current && current.token !== staleToken) return current;
    const credentials = await this.accounts.credentials(tenantId, accountId);
    if (!credentials) throw reauthRequired();
    const fresh = !current || Date.now() - current.deviceIdAt > DEVICE_ID_TTL_MS;
    const deviceId = fresh ? await this.client.getDeviceId() : current.deviceId;
    const deviceIdAt = fresh ? Date.now() : current.deviceIdAt;
    let outcome: Awaited<ReturnType<PlatformClient['login']>>;
    try {
      outcome = await this.client.login({ ...credentials, deviceId });
    } catch (error) {
      if (error instanceof PlatformError && error.kind === 'invalid_credentials') {
        await this.accounts.markReauthRequired(tenantId, accountId);
        throw reauthRequired('the platform no longer accepts the stored password: connect the account again');
      }
      throw error;
    }
    if (outcome.kind === 'twofa') {
      await this.accounts.markReauthRequired(tenantId, accountId);
      throw reauthRequired(
        'the platform asks for a second factor to renew the session: connect the account again',
      );
    }
    const session: PlatformSessionState = { token: outcome.session.token, deviceId, deviceIdAt };
    await this.accounts.saveSession(tenantId, accountId, session);
    return session;
  }
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
