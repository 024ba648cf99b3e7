import type { Keyring } from '@cg/secrets';
import type { Redis } from 'ioredis';
import { extendHold, releaseHold } from './holds';
import { isAccountId, newId, sha256 } from './ids';
import type { StoreKeys } from './keys';
import { defineScripts, type Scripted } from './lua';
import { scanKeys } from './redis';

export type AccountStatus = 'connected' | 'reauth_required';

/** What the gateway knows of a connected account; no secret in here. */
export interface AccountRecord {
  accountId: string;
  tenantId: string;
  name: string;
  countryCode: string;
  platformAccountId: string;
  username: string;
  status: AccountStatus;
  /** The egress proxy its platform calls leave through (`EgressProxy.id`), '' for direct. */
  egressId: string;
  /** That proxy's `host:port`, '' for direct. */
  egressLabel: string;
  createdAt: number;
  updatedAt: number;
}

/** An account as callers see it (`GET /accounts`, the `accounts.*` events): no secret, no internals. */
export function accountSummary(account: AccountRecord) {
  return {
    accountId: account.accountId,
    name: account.name,
    country: account.countryCode,
    username: account.username,
    platformAccountId: account.platformAccountId,
    status: account.status,
    egress: account.egressLabel || 'direct',
    connectedAt: account.createdAt,
  };
}

/** An egress proxy as an account record names it; null is direct. */
export type EgressChoice = { id: string; label: string } | null;

export interface PlatformCredentials {
  username: string;
  password: string;
}

/** A platform session as the worker needs it to sign calls. */
export interface PlatformSessionState {
  token: string;
  deviceId: string;
  /** When the device id was fetched; the platform's clients refresh it every 180 minutes. */
  deviceIdAt: number;
}

export interface ConnectInput {
  tenantId: string;
  name: string;
  countryCode: string;
  platformAccountId: string;
  username: string;
  credentials: PlatformCredentials;
  session: PlatformSessionState;
  /** The proxy the login went through, which the account's calls keep using. */
  egress: EgressChoice;
  /**
   * The jobs whose sealed input or result carry these credentials or this session (the connect, or
   * the connect and the second-factor attempts it took): removed when the account is disconnected.
   */
  jobIds?: string[];
}

/**
 * How many connecting jobs an account remembers: one connected more often than this within the job
 * retention keeps its older connect jobs (sealed) until their retention ends.
 */
const MAX_CONNECT_JOBS = 16;

/** A connection waiting for its second factor: keyed by the hash of the token we gave the caller. */
export interface PendingTwofa {
  usernameHash: string;
  upstreamToken: string;
  /** The proxy the login went through (`EgressProxy.id`), '' for direct: the second factor follows it. */
  egressId: string;
  /** The password the platform accepted at login (sealed with the rest). */
  password: string;
  deviceId: string;
  email: string;
}

const PENDING_TWOFA_TTL_SECONDS = 600;

/**
 * Connected accounts of each tenant. Credentials and the platform session are sealed with the
 * account id as context, so a sealed blob copied onto another account will not open.
 */
export class AccountStore {
  private readonly scripts: Scripted<'save_session' | 'mark_reauth' | 'move_egress' | 'move_mark'>;

  constructor(
    private readonly redis: Redis,
    private readonly keys: StoreKeys,
    private readonly keyring: Keyring,
  ) {
    this.scripts = defineScripts(redis, new URL('./lua/', import.meta.url), {
      'save-session': 1,
      'mark-reauth': 1,
      'move-egress': 1,
      'move-mark': 1,
    });
  }

  /**
   * Stores a connected account. Connecting the same platform account again for the same tenant keeps
   * its service account id and replaces credentials and session, so callers may safely repeat it.
   */
  async connect(input: ConnectInput): Promise<AccountRecord> {
    const { tenantId } = input;
    const existing = await this.redis.hget(this.keys.tenantByPlatformId(tenantId), input.platformAccountId);
    const previous = existing ? await this.get(tenantId, existing) : null;
    const now = Date.now();
    const record: AccountRecord = {
      accountId: previous?.accountId ?? newId('acct'),
      tenantId,
      name: input.name,
      countryCode: input.countryCode,
      platformAccountId: input.platformAccountId,
      username: input.username,
      status: 'connected',
      egressId: input.egress?.id ?? '',
      egressLabel: input.egress?.label ?? '',
      createdAt: previous?.createdAt ?? now,
      updatedAt: now,
    };
    const context = record.accountId;
    const jobsKey = this.keys.accountJobs(tenantId, record.accountId);
    const write = this.redis.multi().hset(this.keys.account(tenantId, record.accountId), {
      ...stringify(record),
      credentials: this.keyring.sealJson(input.credentials, context),
      session: this.keyring.sealJson(input.session, context),
      // `GET /accounts/{id}/status`: connected since now, with a session obtained now.
      [STATUS_AT]: String(now),
      [SESSION_AT]: String(now),
    });
    if (input.jobIds?.length) write.rpush(jobsKey, ...input.jobIds).ltrim(jobsKey, -MAX_CONNECT_JOBS, -1);
    await write
      .zadd(this.keys.tenantAccounts(tenantId), record.createdAt, record.accountId)
      .hset(this.keys.tenantByPlatformId(tenantId), input.platformAccountId, record.accountId)
      .exec();
    await this.countEgress(tenantId, record.accountId, record.egressId);
    return record;
  }

  /** The jobs that connected the account (`ConnectInput.jobIds`), oldest first. */
  async connectJobs(tenantId: string, accountId: string): Promise<string[]> {
    if (!isAccountId(accountId)) return [];
    return this.redis.lrange(this.keys.accountJobs(tenantId, accountId), 0, -1);
  }

  async get(tenantId: string, accountId: string): Promise<AccountRecord | null> {
    if (!isAccountId(accountId)) return null;
    const fields = await this.redis.hmget(this.keys.account(tenantId, accountId), ...RECORD_FIELDS);
    return parseRecord(fields);
  }

  /**
   * Which of these accounts are connected, in one round trip (the listeners' periodic check of the
   * accounts they hold): disconnected or waiting for a new login is false.
   */
  async connected(accounts: readonly { tenantId: string; accountId: string }[]): Promise<boolean[]> {
    if (accounts.length === 0) return [];
    // Sent together, not as one pipeline: on a Redis Cluster the tenants' records lie on several nodes,
    // and a pipeline may only address one.
    const statuses = await Promise.all(
      accounts.map(({ tenantId, accountId }) =>
        this.redis.hget(this.keys.account(tenantId, accountId), 'status'),
      ),
    );
    return statuses.map((status) => status === 'connected');
  }

  /**
   * The record with what `GET /accounts/{id}/status` tells of its connection and session, in one
   * round trip, no secret opened: since when its status holds, when its session was obtained and last
   * renewed, whether it has one, and its realtime mark. Times are Unix ms, null where never written
   * (an account connected before they were kept).
   */
  async statusOf(tenantId: string, accountId: string): Promise<AccountStatusTimes | null> {
    if (!isAccountId(accountId)) return null;
    const key = this.keys.account(tenantId, accountId);
    const replies = (await this.redis
      .pipeline()
      .hmget(key, ...RECORD_FIELDS, STATUS_AT, SESSION_AT, RELOGIN_AT, REALTIME_MARK)
      .hexists(key, 'session')
      .exec()) as [Error | null, unknown][] | null;
    const [fields, hasSession] = (replies ?? []).map(([error, value]) => {
      if (error) throw error;
      return value;
    }) as [(string | null)[], number];
    const record = parseRecord(fields.slice(0, RECORD_FIELDS.length));
    if (!record) return null;
    const [statusAt, sessionAt, reloginAt, mark] = fields.slice(RECORD_FIELDS.length).map(msOrNull);
    return {
      record,
      statusAt: statusAt ?? null,
      sessionAt: sessionAt ?? null,
      reloginAt: reloginAt ?? null,
      hasSession: hasSession === 1,
      realtimeMark: mark ?? null,
    };
  }

  /** The record and its platform session in one read (what the worker needs for each job). */
  async getWithSession(
    tenantId: string,
    accountId: string,
  ): Promise<{ record: AccountRecord; session: PlatformSessionState | null } | null> {
    if (!isAccountId(accountId)) return null;
    const fields = await this.redis.hmget(
      this.keys.account(tenantId, accountId),
      ...RECORD_FIELDS,
      'session',
    );
    const record = parseRecord(fields.slice(0, RECORD_FIELDS.length));
    if (!record) return null;
    const sealed = fields[RECORD_FIELDS.length];
    return {
      record,
      session: sealed ? this.keyring.openJson<PlatformSessionState>(sealed, accountId) : null,
    };
  }

  /**
   * The tenant's oldest connected account (of `among`, when given), reading records only until one
   * is found.
   */
  async firstConnected(tenantId: string, among?: readonly string[]): Promise<AccountRecord | null> {
    const ids = await this.redis.zrange(this.keys.tenantAccounts(tenantId), 0, -1);
    for (const id of among === undefined ? ids : ids.filter((id) => among.includes(id))) {
      const record = await this.get(tenantId, id);
      if (record?.status === 'connected') return record;
    }
    return null;
  }

  /**
   * Every tenant that has accounts, found by scanning their account indexes (a maintenance pass:
   * the listeners' check, at start, that every connected account is held).
   */
  async tenants(): Promise<string[]> {
    const pattern = this.keys.tenantAccounts('*');
    const [head = '', tail = ''] = this.keys.tenantAccounts('\u0000').split('\u0000');
    const found = new Set<string>();
    for (const key of await scanKeys(this.redis, pattern))
      if (key.startsWith(head) && key.endsWith(tail))
        found.add(key.slice(head.length, key.length - tail.length));
    return [...found];
  }

  /**
   * The tenant's account named by its service account id or, as a public client of the imitated
   * service holds it, by its platform account id (digits): never another tenant's.
   */
  async find(tenantId: string, id: string): Promise<AccountRecord | null> {
    if (!/^\d{1,20}$/.test(id)) return this.get(tenantId, id);
    const accountId = await this.redis.hget(this.keys.tenantByPlatformId(tenantId), id);
    return accountId === null ? null : this.get(tenantId, accountId);
  }

  async list(tenantId: string): Promise<AccountRecord[]> {
    const ids = await this.redis.zrange(this.keys.tenantAccounts(tenantId), 0, -1);
    const records = await Promise.all(ids.map((id) => this.get(tenantId, id)));
    return records.filter((record): record is AccountRecord => record !== null);
  }

  async credentials(tenantId: string, accountId: string): Promise<PlatformCredentials | null> {
    const sealed = await this.redis.hget(this.keys.account(tenantId, accountId), 'credentials');
    return sealed ? this.keyring.openJson<PlatformCredentials>(sealed, accountId) : null;
  }

  async session(tenantId: string, accountId: string): Promise<PlatformSessionState | null> {
    return (await this.loginState(tenantId, accountId))?.session ?? null;
  }

  /**
   * What a re-login starts from: the account's status and session, with the session as stored
   * (`sealed`, which `markReauthRequired` compares), or null once the account is disconnected.
   */
  async loginState(
    tenantId: string,
    accountId: string,
  ): Promise<{ status: AccountStatus; session: PlatformSessionState | null; sealed: string } | null> {
    const [status, sealed] = await this.redis.hmget(
      this.keys.account(tenantId, accountId),
      'status',
      'session',
    );
    if (!status) return null;
    return {
      status: status as AccountStatus,
      session: sealed ? this.keyring.openJson<PlatformSessionState>(sealed, accountId) : null,
      sealed: sealed ?? '',
    };
  }

  /** Writes only if the account still exists (a disconnect may have raced the worker); says whether. */
  async saveSession(tenantId: string, accountId: string, session: PlatformSessionState): Promise<boolean> {
    const key = this.keys.account(tenantId, accountId);
    const saved = await this.scripts.save_session(key, this.keyring.sealJson(session, accountId), Date.now());
    return saved === 1;
  }

  /**
   * The account's realtime mark (Unix ms): every frame its realtime connection received until then
   * is published. 0 before any; a listener's backfill reads from there on.
   */
  async realtimeMark(tenantId: string, accountId: string): Promise<number> {
    if (!isAccountId(accountId)) return 0;
    return Number(await this.redis.hget(this.keys.account(tenantId, accountId), REALTIME_MARK));
  }

  /**
   * Moves the realtime mark forward to `ms` (never back: a holder that lost the account a moment ago
   * may still write an older one), in the record's one field, only while the account exists.
   */
  async moveRealtimeMark(tenantId: string, accountId: string, ms: number): Promise<void> {
    await this.scripts.move_mark(this.keys.account(tenantId, accountId), REALTIME_MARK, ms);
  }

  /**
   * Marks the account as needing a new login, only if its session is still the one a failed
   * re-login started from (`loginState().sealed`): a connection made meanwhile is kept. Says whether.
   */
  async markReauthRequired(tenantId: string, accountId: string, sealedSession: string): Promise<boolean> {
    const key = this.keys.account(tenantId, accountId);
    const marked = await this.scripts.mark_reauth(key, Date.now(), sealedSession);
    return marked === 1;
  }

  /**
   * One re-login of an account at a time across processes: true if `owner` holds it now. It lapses
   * after `ms`, so a process that dies while logging in holds no one back for longer.
   */
  async lockRelogin(tenantId: string, accountId: string, owner: string, ms: number): Promise<boolean> {
    return (
      (await this.redis.set(this.keys.accountRelogin(tenantId, accountId), owner, 'PX', ms, 'NX')) === 'OK'
    );
  }

  /** Keeps `owner`'s hold for another `ms` (a login slower than the hold's first term). */
  async extendRelogin(tenantId: string, accountId: string, owner: string, ms: number): Promise<void> {
    await extendHold(this.redis, this.keys.accountRelogin(tenantId, accountId), owner, ms);
  }

  async unlockRelogin(tenantId: string, accountId: string, owner: string): Promise<void> {
    await releaseHold(this.redis, this.keys.accountRelogin(tenantId, accountId), owner);
  }

  /**
   * Moves the account to another proxy if it still leaves through `fromId` (another process may
   * have moved it first). Returns the proxy id it leaves through now, or null once disconnected.
   */
  async moveEgress(
    tenantId: string,
    accountId: string,
    fromId: string,
    to: EgressChoice,
  ): Promise<string | null> {
    const now = await this.scripts.move_egress(
      this.keys.account(tenantId, accountId),
      fromId,
      to?.id ?? '',
      to?.label ?? '',
      Date.now(),
    );
    if (typeof now !== 'string') return null;
    await this.countEgress(tenantId, accountId, now);
    return now;
  }

  /**
   * The proxies' load (platform-access `ProxyHealth.load`), in a slot of its own: written after the record, and
   * idempotent, so a retried connect or move counts once.
   */
  private async countEgress(tenantId: string, accountId: string, proxyId: string): Promise<void> {
    const field = `${tenantId}/${accountId}`;
    if (proxyId === '') await this.redis.hdel(this.keys.egressLoad(), field);
    else await this.redis.hset(this.keys.egressLoad(), field, proxyId);
  }

  /** Disconnects: the record, its sealed credentials and session are destroyed. Returns the record. */
  async remove(tenantId: string, accountId: string): Promise<AccountRecord | null> {
    const record = await this.get(tenantId, accountId);
    if (!record) return null;
    await this.redis
      .multi()
      .del(
        this.keys.account(tenantId, accountId),
        this.keys.accountJobs(tenantId, accountId),
        this.keys.accountHealth(tenantId, accountId),
      )
      .zrem(this.keys.tenantAccounts(tenantId), accountId)
      .hdel(this.keys.tenantByPlatformId(tenantId), record.platformAccountId)
      .exec();
    await this.countEgress(tenantId, accountId, '');
    return record;
  }

  /** Returns the token to hand the caller (its hash names the key; the record itself is sealed). */
  async putPendingTwofa(
    tenantId: string,
    username: string,
    pending: Omit<PendingTwofa, 'usernameHash'>,
    /** The connect job that started it (its sealed input holds the password). */
    jobId: string,
  ): Promise<string> {
    const token = newId('tfa');
    const record: PendingTwofa = { ...pending, usernameHash: sha256(username.toLowerCase()) };
    const hash = sha256(token);
    await this.redis
      .multi()
      .set(
        this.keys.pendingTwofa(tenantId, hash),
        this.keyring.sealJson(record, token),
        'EX',
        PENDING_TWOFA_TTL_SECONDS,
      )
      .rpush(this.keys.pendingTwofaJobs(tenantId, hash), jobId)
      .expire(this.keys.pendingTwofaJobs(tenantId, hash), PENDING_TWOFA_TTL_SECONDS)
      .exec();
    return token;
  }

  /** A second-factor attempt's job (its sealed input holds the password and the code). */
  async notePendingTwofaAttempt(tenantId: string, token: string, jobId: string): Promise<void> {
    const jobs = this.keys.pendingTwofaJobs(tenantId, sha256(token));
    await this.redis.multi().rpush(jobs, jobId).expire(jobs, PENDING_TWOFA_TTL_SECONDS).exec();
  }

  /** The connect job and the attempts of a pending connection, oldest first. */
  async pendingTwofaJobs(tenantId: string, token: string): Promise<string[]> {
    return this.redis.lrange(this.keys.pendingTwofaJobs(tenantId, sha256(token)), 0, -1);
  }

  /** The pending connection, if the token is known, unexpired and was issued for this username. */
  async getPendingTwofa(tenantId: string, token: string, username: string): Promise<PendingTwofa | null> {
    const sealed = await this.redis.get(this.keys.pendingTwofa(tenantId, sha256(token)));
    if (!sealed) return null;
    const record = this.keyring.openJson<PendingTwofa>(sealed, token);
    return record.usernameHash === sha256(username.toLowerCase()) ? record : null;
  }

  async deletePendingTwofa(tenantId: string, token: string): Promise<void> {
    const hash = sha256(token);
    await this.redis.del(this.keys.pendingTwofa(tenantId, hash), this.keys.pendingTwofaJobs(tenantId, hash));
  }
}

/** The field of the account's hash holding its realtime mark (`realtimeMark`), beside the record. */
const REALTIME_MARK = 'realtimeMark';
/**
 * Fields beside the record for `statusOf` (Unix ms): since when its status holds (set by a connect and
 * by mark-reauth.lua), when its session was obtained (a connect, save-session.lua) and last renewed by
 * a re-login (save-session.lua).
 */
const STATUS_AT = 'statusAt';
const SESSION_AT = 'sessionAt';
const RELOGIN_AT = 'reloginAt';

/** What `AccountStore.statusOf` reads: the record, and times in Unix ms (null: never written). */
export interface AccountStatusTimes {
  record: AccountRecord;
  statusAt: number | null;
  sessionAt: number | null;
  reloginAt: number | null;
  /** Whether a platform session is stored (none once the account needs a new login). */
  hasSession: boolean;
  realtimeMark: number | null;
}

const msOrNull = (value: string | null) => {
  const ms = Number(value);
  return value === null || value === '' || !Number.isFinite(ms) || ms <= 0 ? null : ms;
};

const RECORD_FIELDS = [
  'accountId',
  'tenantId',
  'name',
  'countryCode',
  'platformAccountId',
  'username',
  'status',
  'egressId',
  'egressLabel',
  'createdAt',
  'updatedAt',
] as const;

function stringify(record: AccountRecord): Record<string, string> {
  return { ...record, createdAt: String(record.createdAt), updatedAt: String(record.updatedAt) };
}

function parseRecord(fields: (string | null)[]): AccountRecord | null {
  const [
    accountId,
    tenantId,
    name,
    countryCode,
    platformAccountId,
    username,
    status,
    egressId,
    egressLabel,
    createdAt,
    updatedAt,
  ] = fields;
  if (!accountId || !tenantId) return null;
  return {
    accountId,
    tenantId,
    name: name ?? '',
    countryCode: countryCode ?? '',
    platformAccountId: platformAccountId ?? '',
    username: username ?? '',
    status: status === 'reauth_required' ? 'reauth_required' : 'connected',
    egressId: egressId ?? '',
    egressLabel: egressLabel ?? '',
    createdAt: Number(createdAt),
    updatedAt: Number(updatedAt),
  };
}
