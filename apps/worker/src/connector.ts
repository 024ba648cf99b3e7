import { timingSafeEqual } from 'node:crypto';
import { GatewayError } from '@cg/contract';
import { accountEvent, type PublishEvent } from '@cg/events';
import type { Connector, ConnectRequest, ConnectResult } from '@cg/operations';
import type { Egress, Route } from '@cg/platform-access';
import type { UpstreamSession } from '@cg/platform-client';
import type { ListenJobs, ProcessorContext } from '@cg/queue';
import { type AccountStore, accountSummary, sha256 } from '@cg/store';

/** Second-factor attempts one twoFactorToken takes, right or wrong. */
export const MAX_TWOFA_ATTEMPTS = 10;

/** Links platform accounts to a tenant: login, second factor, and storing the sealed result. */
export class AccountConnector implements Connector {
  constructor(
    /** Logins leave through a proxy of the account's country, which the account then keeps. */
    private readonly egress: Egress,
    private readonly accounts: AccountStore,
    private readonly tenantId: string,
    /** The job's hooks: the single-use second-factor login is a write (see WriteLedger). */
    private readonly job: Pick<ProcessorContext, 'jobId' | 'beforeCall' | 'afterWrite'>,
    /** Where a connected account is handed to the listeners (its realtime connection). */
    private readonly listen: Pick<ListenJobs, 'watch'>,
    /** Where its `accounts.connected` event goes. */
    private readonly publish: PublishEvent,
  ) {}

  async connect(request: ConnectRequest): Promise<ConnectResult> {
    // Held to the username's lane (`loginLane`) like any call of an account.
    await this.job.beforeCall(false);
    const route = await this.egress.forLogin(this.tenantId, request.username, request.countryCode);
    const deviceId = await route.send('deviceId', (client) => client.getDeviceId());
    const { username, password } = request;
    const outcome = await route.send('login', (client) => client.login({ username, password, deviceId }));
    if (outcome.kind === 'twofa') {
      // The caller gets a token of ours; the platform's twofa token stays sealed in Redis.
      const twofaToken = await this.accounts.putPendingTwofa(
        this.tenantId,
        request.username,
        {
          upstreamToken: outcome.token,
          password: request.password,
          deviceId,
          email: outcome.email,
          egressId: route.choice?.id ?? '',
        },
        this.job.jobId,
      );
      return { kind: 'twofa', twofaToken, maskedEmail: outcome.email };
    }
    return this.store(request, outcome.session, deviceId, route);
  }

  async verifyTwofa(
    request: ConnectRequest & { twoFactorToken: string; twoFactorCode: string },
  ): Promise<ConnectResult> {
    const pending = await this.accounts.getPendingTwofa(
      this.tenantId,
      request.twoFactorToken,
      request.username,
    );
    if (!pending) {
      throw new GatewayError(
        'TWOFA_TOKEN_EXPIRED',
        'twoFactorToken is unknown, expired or was issued for another username: call /connect again',
      );
    }
    // Linked first: whatever this attempt's outcome, its input holds a password.
    await this.accounts.notePendingTwofaAttempt(this.tenantId, request.twoFactorToken, this.job.jobId);
    // The connect job and the attempts (a retried one once) are removed with the account, which
    // remembers 16 jobs. Counted after linking, so two attempts at once cannot both slip in.
    const linked = new Set(await this.accounts.pendingTwofaJobs(this.tenantId, request.twoFactorToken));
    if (linked.size - 1 > MAX_TWOFA_ATTEMPTS) {
      throw new GatewayError(
        'TWOFA_TOKEN_EXPIRED',
        `twoFactorToken was tried ${MAX_TWOFA_ATTEMPTS} times: call /connect again`,
      );
    }
    // The password is the one the platform accepted at /connect, which is the one stored; another is
    // refused before the code is spent, so the token stays usable.
    if (!samePassword(request.password, pending.password)) {
      throw new GatewayError('INVALID_CREDENTIALS', 'password differs from the one given to /connect');
    }
    await this.job.beforeCall(true);
    // The second factor follows the login's proxy; the country is the one /connect was given.
    const route = await this.egress.forLogin(
      this.tenantId,
      request.username,
      request.countryCode,
      pending.egressId,
    );
    const session = await route.send('loginTwofa', (client) =>
      client.loginTwofa({
        token: pending.upstreamToken,
        code: request.twoFactorCode,
        deviceId: pending.deviceId,
      }),
    );
    this.job.afterWrite();
    const jobIds = await this.accounts.pendingTwofaJobs(this.tenantId, request.twoFactorToken);
    await this.accounts.deletePendingTwofa(this.tenantId, request.twoFactorToken);
    return this.store(request, session, pending.deviceId, route, jobIds);
  }

  private async store(
    request: ConnectRequest,
    session: UpstreamSession,
    deviceId: string,
    route: Route,
    /** The jobs of the connection this one completes (its connect and second-factor attempts). */
    earlier: string[] = [],
  ): Promise<ConnectResult> {
    const record = await this.accounts.connect({
      tenantId: this.tenantId,
      name: request.name,
      countryCode: request.countryCode,
      platformAccountId: String(session.accountId),
      username: request.username,
      credentials: { username: request.username, password: request.password },
      session: { token: session.token, deviceId, deviceIdAt: Date.now() },
      egress: route.choice,
      jobIds: [...new Set([...earlier, this.job.jobId])],
    });
    await this.listen.watch(this.tenantId, record.accountId);
    await this.publish(
      this.tenantId,
      accountEvent('accounts.connected', accountSummary(record), this.job.jobId),
    );
    return { kind: 'connected', accountId: record.accountId, session: { ...session } };
  }
}

/** Compared in constant time, as digests, so the comparison tells nothing of the stored password. */
function samePassword(given: string, stored: string): boolean {
  return timingSafeEqual(Buffer.from(sha256(given)), Buffer.from(sha256(stored)));
}
