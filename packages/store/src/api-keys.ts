import type { Redis } from 'ioredis';
import { newId, randomId, sha256 } from './ids';
import type { StoreKeys } from './keys';

export interface ApiKeyInfo {
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

export const TENANT_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * API keys are stored only as SHA-256 hashes: a key is 192 random bits, so a fast hash is enough (no
 * password stretching needed) and lookups stay one HGETALL.
 */
export class ApiKeyStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: StoreKeys,
  ) {}

  /** A new key; `rpm` (requests a minute, 0 = unlimited) is stored with it, else the default applies. */
  async create(tenantId: string, label = '', rpm?: number): Promise<{ key: string; info: ApiKeyInfo }> {
    const key = `cgk_${randomId(32)}`;
    return { key, info: await this.insert(key, tenantId, label, rpm) };
  }

  /** Registers a key chosen outside (the bootstrap key of a deployment); idempotent. */
  async ensure(key: string, tenantId: string, label = 'bootstrap'): Promise<ApiKeyInfo> {
    return (await this.resolve(key)) ?? this.insert(key, tenantId, label);
  }

  async resolve(key: string): Promise<ApiKeyInfo | null> {
    const hash = sha256(key);
    return (await this.info(this.keys.apiKey(hash))) ?? (await this.info(this.keys.legacyApiKey(hash)));
  }

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

  /** Returns false when no such key id exists. */
  async revoke(keyId: string): Promise<boolean> {
    const hash = await this.redis.hget(this.keys.apiKeyIndex(), keyId);
    if (hash) {
      await this.redis.multi().del(this.keys.apiKey(hash)).hdel(this.keys.apiKeyIndex(), keyId).exec();
      return true;
    }
    const legacy = await this.redis.hget(this.keys.legacyApiKeyIndex(), keyId);
    if (!legacy) return false;
    // Two slots: the record first, so that the key stops working even if the second step fails.
    await this.redis.del(this.keys.legacyApiKey(legacy));
    await this.redis.hdel(this.keys.legacyApiKeyIndex(), keyId);
    return true;
  }

  private async info(recordKey: string): Promise<ApiKeyInfo | null> {
    return toInfo(await this.redis.hgetall(recordKey));
  }

  private async insert(key: string, tenantId: string, label: string, rpm?: number): Promise<ApiKeyInfo> {
    if (!TENANT_PATTERN.test(tenantId)) throw new Error('tenant must be 1-64 characters of [A-Za-z0-9_-]');
    if (rpm !== undefined && !(Number.isSafeInteger(rpm) && rpm >= 0))
      throw new Error('rpm must be a whole number of requests a minute, 0 for unlimited');
    const info: ApiKeyInfo = {
      keyId: newId('key'),
      tenantId,
      label,
      createdAt: Date.now(),
      ...(rpm === undefined ? {} : { rpm }),
    };
    const hash = sha256(key);
    await this.redis
      .multi()
      .hset(this.keys.apiKey(hash), {
        ...info,
        createdAt: String(info.createdAt),
        ...(rpm === undefined ? {} : { rpm: String(rpm) }),
      })
      .hset(this.keys.apiKeyIndex(), info.keyId, hash)
      .exec();
    return info;
  }
}

function toInfo(record: Record<string, string>): ApiKeyInfo | null {
  if (!record.keyId || !record.tenantId) return null;
  return {
    keyId: record.keyId,
    tenantId: record.tenantId,
    label: record.label ?? '',
    createdAt: Number(record.createdAt),
    ...(record.rpm === undefined ? {} : { rpm: Number(record.rpm) }),
  };
}
