import type { Redis } from 'ioredis';
import { newId, randomId, sha256 } from './ids';
import type { StoreKeys } from './keys';
import { defineScripts, type Scripted } from './lua';

/** What a key may do: `read` GET operations and job status; `write` every operation; `admin` more. */
export const KEY_ACCESS = ['read', 'write', 'admin'] as const;
export type KeyAccess = (typeof KEY_ACCESS)[number];

/** A key's scope: its access, and the service account ids it reaches (`null`: every one). */
export interface KeyScope {
  access: KeyAccess;
  accounts: string[] | null;
}

export interface ApiKeyInfo extends KeyScope {
  keyId: string;
  tenantId: string;
  label: string;
  createdAt: number;
  /**
   * Requests a minute the key may make; 0 = unlimited. Absent on keys made without one (before
   * limits existed, the bootstrap key): the API's `API_KEY_RPM_DEFAULT` applies to them.
   */
  rpm?: number;
}

/** What a key is made with or changed to; what is left out keeps its value (made: admin, every account). */
export interface KeyFields {
  label?: string;
  rpm?: number;
  access?: KeyAccess;
  accounts?: string[] | null;
}

/** Why a change was refused: the key is the tenant's last admin key. */
export const LAST_ADMIN = 'last-admin';
/** Why a change was refused: the key was made before scopes existed (it can only be revoked). */
export const LEGACY = 'legacy';

export const TENANT_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** Keys made before scopes existed hold neither field: admin over every account, as they were. */
const LEGACY_SCOPE: KeyScope = { access: 'admin', accounts: null };

/**
 * API keys are stored only as SHA-256 hashes: a key is 192 random bits, so a fast hash is enough (no
 * password stretching needed) and lookups stay one HGETALL. Every key record and index shares the
 * `{keys}` slot, so a change is one MULTI, or one script where it depends on what it checked.
 */
export class ApiKeyStore {
  private readonly scripts: Scripted<'key_change'>;

  constructor(
    private readonly redis: Redis,
    private readonly keys: StoreKeys,
  ) {
    this.scripts = defineScripts(redis, new URL('./lua/', import.meta.url), { 'key-change': 3 });
  }

  /** A new key of `tenantId`; `rpm` (0 = unlimited) is stored with it, else the default applies. */
  async create(tenantId: string, fields: KeyFields = {}): Promise<{ key: string; info: ApiKeyInfo }> {
    const key = `cgk_${randomId(32)}`;
    return { key, info: await this.insert(key, tenantId, { label: '', ...fields }) };
  }

  /** Registers a key chosen outside (the bootstrap key of a deployment); idempotent. */
  async ensure(key: string, tenantId: string, label = 'bootstrap'): Promise<ApiKeyInfo> {
    return (await this.resolve(key)) ?? this.insert(key, tenantId, { label });
  }

  async resolve(key: string): Promise<ApiKeyInfo | null> {
    const hash = sha256(key);
    return (await this.info(this.keys.apiKey(hash))) ?? (await this.info(this.keys.legacyApiKey(hash)));
  }

  /** Every key (of every tenant), oldest first. */
  async list(): Promise<ApiKeyInfo[]> {
    const [current, legacy] = await Promise.all([
      this.redis.hgetall(this.keys.apiKeyIndex()),
      this.redis.hgetall(this.keys.legacyApiKeyIndex()),
    ]);
    const infos = await Promise.all([
      ...Object.values(current).map((hash) => this.info(this.keys.apiKey(hash))),
      ...Object.values(legacy).map((hash) => this.info(this.keys.legacyApiKey(hash))),
    ]);
    return infos
      .filter((info): info is ApiKeyInfo => info !== null)
      .sort((a, b) => a.createdAt - b.createdAt);
  }

  /** The keys of one tenant, oldest first. */
  async ofTenant(tenantId: string): Promise<ApiKeyInfo[]> {
    return (await this.list()).filter((info) => info.tenantId === tenantId);
  }

  /** One key of `tenantId` by id, or null (another tenant's is null too). */
  async get(tenantId: string, keyId: string): Promise<ApiKeyInfo | null> {
    const record = await this.recordKey(keyId);
    const info = record && (await this.info(record));
    return info && info.tenantId === tenantId ? info : null;
  }

  /**
   * Changes a key's label, limit or scope: the new record, null when `tenantId` has no such key,
   * `LAST_ADMIN` when it would leave the tenant without an admin key, `LEGACY` for a key made before
   * scopes existed (revoke it and make a new one).
   */
  async update(
    tenantId: string,
    keyId: string,
    fields: KeyFields,
  ): Promise<ApiKeyInfo | null | typeof LAST_ADMIN | typeof LEGACY> {
    const demotes = fields.access !== undefined && fields.access !== 'admin';
    return this.guarded(tenantId, keyId, demotes, (info) => {
      const next = { ...info, ...definedFields(fields) };
      checkFields(next);
      return { result: next, change: ['update', keyId, ...Object.entries(storedFields(next)).flat()] };
    });
  }

  /** Revokes a key of `tenantId`: false when there is no such key, `LAST_ADMIN` for the last admin key. */
  async remove(tenantId: string, keyId: string): Promise<boolean | typeof LAST_ADMIN> {
    if (await this.redis.hexists(this.keys.legacyApiKeyIndex(), keyId)) {
      if (!(await this.get(tenantId, keyId))) return false;
      if ((await this.admins(tenantId)) <= 1) return LAST_ADMIN;
      return this.revoke(keyId);
    }
    const done = await this.guarded(tenantId, keyId, true, () => ({
      result: true as const,
      change: ['remove', keyId],
    }));
    return done === LEGACY || done === null ? false : done;
  }

  /** Returns false when no such key id exists (the CLI's revoke: any tenant, no last-admin rule). */
  async revoke(keyId: string): Promise<boolean> {
    const hash = await this.redis.hget(this.keys.apiKeyIndex(), keyId);
    if (hash) {
      await this.redis
        .multi()
        .del(this.keys.apiKey(hash))
        .hdel(this.keys.apiKeyIndex(), keyId)
        .incr(this.keys.apiKeysVersion())
        .exec();
      return true;
    }
    const legacy = await this.redis.hget(this.keys.legacyApiKeyIndex(), keyId);
    if (!legacy) return false;
    // Two slots: the record first, so that the key stops working even if the second step fails.
    await this.redis.del(this.keys.legacyApiKey(legacy));
    await this.redis.hdel(this.keys.legacyApiKeyIndex(), keyId);
    return true;
  }

  /** How many admin keys `tenantId` has. */
  private async admins(tenantId: string): Promise<number> {
    return (await this.ofTenant(tenantId)).filter((key) => key.access === 'admin').length;
  }

  /**
   * Applies `change` to a current key's record when nothing changed the keys since its checks read
   * them (the `key-change` script compares the keys' version): when `dropsAdmin` and the key is
   * admin, it is refused if no other admin key of the tenant would remain. Every guarded change
   * moves the version, so two demotions cannot both pass; read again when another change landed in
   * between.
   */
  private async guarded<T>(
    tenantId: string,
    keyId: string,
    dropsAdmin: boolean,
    change: (info: ApiKeyInfo) => { result: T; change: string[] },
  ): Promise<T | null | typeof LAST_ADMIN | typeof LEGACY> {
    const version = this.keys.apiKeysVersion();
    for (let attempt = 0; attempt < 20; attempt++) {
      const read = (await this.redis.get(version)) ?? '';
      const found = await this.changeable(tenantId, keyId, dropsAdmin);
      if (found === null || typeof found !== 'object') return found;
      const made = change(found.info);
      const applied = await this.scripts.key_change(
        version,
        found.record,
        this.keys.apiKeyIndex(),
        read,
        ...made.change,
      );
      if (applied === 1) return made.result;
    }
    throw new Error('the API keys kept changing: try again');
  }

  /** The key and its record, or why a guarded change cannot go on. */
  private async changeable(tenantId: string, keyId: string, dropsAdmin: boolean) {
    const hash = keyId.startsWith('key_') ? await this.redis.hget(this.keys.apiKeyIndex(), keyId) : null;
    if (!hash)
      return (await this.redis.hexists(this.keys.legacyApiKeyIndex(), keyId)) &&
        (await this.get(tenantId, keyId))
        ? LEGACY
        : null;
    const record = this.keys.apiKey(hash);
    const info = await this.info(record);
    if (!info || info.tenantId !== tenantId) return null;
    if (dropsAdmin && info.access === 'admin' && (await this.admins(tenantId)) <= 1) return LAST_ADMIN;
    return { info, record };
  }

  /** The Redis key of a key id's record (current or legacy), or null. */
  private async recordKey(keyId: string): Promise<string | null> {
    const hash = await this.redis.hget(this.keys.apiKeyIndex(), keyId);
    if (hash) return this.keys.apiKey(hash);
    const legacy = await this.redis.hget(this.keys.legacyApiKeyIndex(), keyId);
    return legacy ? this.keys.legacyApiKey(legacy) : null;
  }

  private async info(recordKey: string): Promise<ApiKeyInfo | null> {
    return toInfo(await this.redis.hgetall(recordKey));
  }

  private async insert(key: string, tenantId: string, fields: KeyFields): Promise<ApiKeyInfo> {
    if (!TENANT_PATTERN.test(tenantId)) throw new Error('tenant must be 1-64 characters of [A-Za-z0-9_-]');
    const info: ApiKeyInfo = {
      keyId: newId('key'),
      tenantId,
      label: '',
      createdAt: Date.now(),
      ...LEGACY_SCOPE,
      ...definedFields(fields),
    };
    checkFields(info);
    const hash = sha256(key);
    await this.redis
      .multi()
      .hset(this.keys.apiKey(hash), storedFields(info))
      .hset(this.keys.apiKeyIndex(), info.keyId, hash)
      .exec();
    return info;
  }
}

function definedFields(fields: KeyFields): KeyFields {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

function checkFields(info: ApiKeyInfo): void {
  if (info.rpm !== undefined && !(Number.isSafeInteger(info.rpm) && info.rpm >= 0))
    throw new Error('rpm must be a whole number of requests a minute, 0 for unlimited');
  if (!KEY_ACCESS.includes(info.access)) throw new Error(`access must be one of ${KEY_ACCESS.join(', ')}`);
}

function storedFields(info: ApiKeyInfo): Record<string, string> {
  return {
    keyId: info.keyId,
    tenantId: info.tenantId,
    label: info.label,
    createdAt: String(info.createdAt),
    access: info.access,
    accounts: JSON.stringify(info.accounts),
    ...(info.rpm === undefined ? {} : { rpm: String(info.rpm) }),
  };
}

function toInfo(record: Record<string, string>): ApiKeyInfo | null {
  if (!record.keyId || !record.tenantId) return null;
  return {
    keyId: record.keyId,
    tenantId: record.tenantId,
    label: record.label ?? '',
    createdAt: Number(record.createdAt),
    access: (record.access as KeyAccess | undefined) ?? LEGACY_SCOPE.access,
    accounts:
      record.accounts === undefined
        ? LEGACY_SCOPE.accounts
        : (JSON.parse(record.accounts) as string[] | null),
    ...(record.rpm === undefined ? {} : { rpm: Number(record.rpm) }),
  };
}
