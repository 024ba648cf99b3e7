import type { Keyring } from '@cg/secrets';
import type { Redis } from 'ioredis';
import { endpointId, isEndpointId, newSecret } from './ids';
import type { EventKeys } from './keys';
import type { WebhookEndpoint } from './records';

/** How long a rotated-out secret keeps signing beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

export interface DeliveryCounters {
  delivered: number;
  failedAttempts: number;
  givenUp: number;
  pending: number;
}

export interface EndpointInput {
  url: string;
  events?: string[] | null;
  accountIds?: string[] | null;
  description?: string;
}

export type EndpointPatch = Partial<EndpointInput> & { enabled?: boolean };

/** What the delivery process needs of an endpoint: the view, the live secrets, when it began failing. */
export interface DeliveryTarget {
  endpoint: WebhookEndpoint;
  secrets: string[];
  failingSince: number | null;
}

const iso = (ms: string | undefined) => new Date(Number(ms ?? 0)).toISOString();
const json = (value: unknown) => JSON.stringify(value ?? null);

/**
 * The tenants' webhook endpoints. Secrets are sealed with the endpoint id as context (a sealed secret
 * copied onto another endpoint does not open) and leave this class only through `create`, `rotate`
 * (shown once to the caller) and `target` (the delivery process, to sign).
 */
export class WebhookStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: EventKeys,
    private readonly keyring: Keyring,
  ) {}

  async create(
    tenantId: string,
    input: EndpointInput,
  ): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    const id = endpointId();
    const secret = newSecret();
    const now = String(Date.now());
    await this.redis
      .multi()
      .hset(this.keys.endpoint(tenantId, id), {
        id,
        url: input.url,
        description: input.description ?? '',
        events: json(input.events),
        accountIds: json(input.accountIds),
        enabled: '1',
        disabledReason: '',
        createdAt: now,
        updatedAt: now,
        secret: this.keyring.seal(secret, id),
      })
      .zadd(this.keys.endpoints(tenantId), now, id)
      .exec();
    return { endpoint: (await this.get(tenantId, id)) as WebhookEndpoint, secret };
  }

  async list(tenantId: string): Promise<WebhookEndpoint[]> {
    const ids = await this.redis.zrange(this.keys.endpoints(tenantId), 0, -1);
    const read = this.redis.pipeline();
    for (const id of ids) read.hgetall(this.keys.endpoint(tenantId, id));
    const rows = (await read.exec()) ?? [];
    return rows.flatMap(([, fields]) => {
      const view = parseEndpoint(fields as Record<string, string>);
      return view ? [view] : [];
    });
  }

  async get(tenantId: string, id: string): Promise<WebhookEndpoint | null> {
    if (!isEndpointId(id)) return null;
    return parseEndpoint(await this.redis.hgetall(this.keys.endpoint(tenantId, id)));
  }

  async counters(tenantId: string, id: string): Promise<DeliveryCounters> {
    const [[, fields], [, pending]] = (await this.redis
      .pipeline()
      .hmget(this.keys.endpoint(tenantId, id), 'delivered', 'failedAttempts', 'givenUp')
      .scard(this.keys.pending(tenantId, id))
      .exec()) as [[null, (string | null)[]], [null, number]];
    const [delivered, failedAttempts, givenUp] = fields.map((value) => Number(value ?? 0));
    return { delivered: delivered ?? 0, failedAttempts: failedAttempts ?? 0, givenUp: givenUp ?? 0, pending };
  }

  async update(tenantId: string, id: string, patch: EndpointPatch): Promise<WebhookEndpoint | null> {
    if ((await this.get(tenantId, id)) === null) return null;
    const fields: Record<string, string> = { updatedAt: String(Date.now()) };
    if (patch.url !== undefined) fields.url = patch.url;
    if (patch.description !== undefined) fields.description = patch.description;
    if (patch.events !== undefined) fields.events = json(patch.events);
    if (patch.accountIds !== undefined) fields.accountIds = json(patch.accountIds);
    if (patch.enabled !== undefined) {
      fields.enabled = patch.enabled ? '1' : '0';
      fields.disabledReason = '';
    }
    const write = this.redis.multi().hset(this.keys.endpoint(tenantId, id), fields);
    // Enabled again: its failing streak starts over.
    if (patch.enabled) write.hdel(this.keys.endpoint(tenantId, id), 'failingSince');
    await write.exec();
    return this.get(tenantId, id);
  }

  /** Removes the endpoint with its records; answers the delivery jobs still pending (to drop), or null. */
  async remove(tenantId: string, id: string): Promise<string[] | null> {
    if ((await this.get(tenantId, id)) === null) return null;
    const pending = await this.redis.smembers(this.keys.pending(tenantId, id));
    await this.redis
      .multi()
      .zrem(this.keys.endpoints(tenantId), id)
      .unlink(
        this.keys.endpoint(tenantId, id),
        this.keys.attempts(tenantId, id),
        this.keys.pending(tenantId, id),
      )
      .exec();
    return pending;
  }

  /** A new secret; the current one keeps signing beside it for `ROTATION_OVERLAP_MS`. */
  async rotate(tenantId: string, id: string): Promise<string | null> {
    const key = this.keys.endpoint(tenantId, id);
    if (!isEndpointId(id)) return null;
    const current = await this.redis.hget(key, 'secret');
    if (current === null) return null;
    const secret = newSecret();
    await this.redis.hset(key, {
      secret: this.keyring.seal(secret, id),
      previousSecret: current,
      previousUntil: String(Date.now() + ROTATION_OVERLAP_MS),
      updatedAt: String(Date.now()),
    });
    return secret;
  }

  /** The endpoint with its live secrets (the current one first), for a delivery; null when gone. */
  async target(tenantId: string, id: string, now = Date.now()): Promise<DeliveryTarget | null> {
    const fields = await this.redis.hgetall(this.keys.endpoint(tenantId, id));
    const endpoint = parseEndpoint(fields);
    if (!endpoint || !fields.secret) return null;
    const secrets = [this.keyring.open(fields.secret, id)];
    if (fields.previousSecret && Number(fields.previousUntil ?? 0) > now)
      secrets.push(this.keyring.open(fields.previousSecret, id));
    return { endpoint, secrets, failingSince: fields.failingSince ? Number(fields.failingSince) : null };
  }

  /** Disabled by the gateway (`reason`), unless it was removed meanwhile. */
  async disable(tenantId: string, id: string, reason: string): Promise<void> {
    const key = this.keys.endpoint(tenantId, id);
    if ((await this.redis.exists(key)) === 0) return;
    await this.redis.hset(key, { enabled: '0', disabledReason: reason, updatedAt: String(Date.now()) });
  }
}

function parseEndpoint(fields: Record<string, string>): WebhookEndpoint | null {
  if (!fields.id || !fields.url) return null;
  return {
    id: fields.id,
    url: fields.url,
    description: fields.description ?? '',
    events: JSON.parse(fields.events ?? 'null') as string[] | null,
    accountIds: JSON.parse(fields.accountIds ?? 'null') as string[] | null,
    enabled: fields.enabled === '1',
    disabledReason: fields.disabledReason || null,
    createdAt: iso(fields.createdAt),
    updatedAt: iso(fields.updatedAt),
  };
}

/** Whether the endpoint takes `event` of `accountId` (a test event reaches it whatever its filters). */
export function receives(endpoint: WebhookEndpoint, event: string, accountId: string | null): boolean {
  if (!endpoint.enabled) return false;
  if (endpoint.events !== null && !endpoint.events.includes(event)) return false;
  return endpoint.accountIds === null || (accountId !== null && endpoint.accountIds.includes(accountId));
}
