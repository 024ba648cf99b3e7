import { storeKeys } from '@cg/store';
import type { Redis } from 'ioredis';

/**
 * Each tenant's recent jobs, newest first (`GET /jobs`): one ZSET per tenant in the tenant's slot
 * (`StoreKeys.tenantJobs`), member `<jobId> <op> <accountId>` (so that the listing filters by
 * operation and account, and by a key's reach, without reading the jobs), score the submit time.
 *
 * Written by the API's queue for the requests a group admitted: one ZADD per tenant of the group,
 * sent beside the group's add (the same round trip); trimmed to the jobs' retention at most once a
 * minute per tenant per process, which also sets the key to expire after the last job's retention.
 * An entry may outlive its job (removed with a disconnected account, or never added when Redis failed
 * mid-way): the listing reads each job and leaves those out.
 */

/** One job of the index. */
export interface TenantJob {
  jobId: string;
  op: string;
  /** The service account it runs on; undefined for a login (connect, verify-2fa). */
  accountId: string | undefined;
  /** When it was submitted (Unix ms, the API's clock). */
  at: number;
}

/** Where a listing goes on from: the last entry it looked at. */
export interface TenantJobsCursor {
  at: number;
  jobId: string;
}

/** How often one process trims one tenant's index. */
const TRIM_EVERY_MS = 60_000;
/** The index outlives its last trim by the retention and this, so an entry added since still lasts. */
const EXPIRY_MARGIN_MS = 2 * TRIM_EVERY_MS;
/** Tenants whose last trim a process remembers before it forgets the old ones. */
const MAX_REMEMBERED = 10_000;

export class TenantJobs {
  private readonly keyOf: (tenantId: string) => string;
  /** When this process last trimmed each tenant's index. */
  private readonly trimmed = new Map<string, number>();

  constructor(
    private readonly redis: Redis,
    prefix: string,
    /** How long an entry is kept: as long as its job may be (ms). */
    private readonly keepMs: number,
  ) {
    this.keyOf = storeKeys(prefix).tenantJobs;
  }

  /** Notes submitted jobs: one ZADD per tenant (plus its trim when due), sent together. */
  async add(jobs: (TenantJob & { tenantId: string })[]): Promise<void> {
    const byTenant = new Map<string, (string | number)[]>();
    for (const job of jobs) {
      const args = byTenant.get(job.tenantId) ?? [];
      args.push(job.at, memberOf(job));
      byTenant.set(job.tenantId, args);
    }
    const now = Date.now();
    const sent: Promise<unknown>[] = [];
    // One command per tenant, not one pipeline: on a Cluster the tenants' slots lie on several nodes.
    for (const [tenantId, args] of byTenant) {
      const key = this.keyOf(tenantId);
      sent.push(this.redis.zadd(key, ...args));
      if (now - (this.trimmed.get(tenantId) ?? 0) < TRIM_EVERY_MS) continue;
      if (this.trimmed.size >= MAX_REMEMBERED) this.trimmed.clear();
      this.trimmed.set(tenantId, now);
      sent.push(
        this.redis
          .multi()
          .zremrangebyscore(key, '-inf', now - this.keepMs)
          .pexpire(key, this.keepMs + EXPIRY_MARGIN_MS)
          .exec(),
      );
    }
    await Promise.all(sent);
  }

  /**
   * Up to `count` entries of the tenant's index, newest first, after `from` (exclusive; the newest
   * when absent). Fewer only at the end of the index.
   */
  async page(tenantId: string, from: TenantJobsCursor | undefined, count: number): Promise<TenantJob[]> {
    const key = this.keyOf(tenantId);
    const found: TenantJob[] = [];
    // Entries of `from`'s time sort by member, descending: those not before `from` are skipped.
    for (let offset = 0; found.length < count; ) {
      const want = count - found.length + (from === undefined ? 0 : 16);
      const flat = await this.redis.zrevrangebyscore(
        key,
        from === undefined ? '+inf' : from.at,
        '-inf',
        'WITHSCORES',
        'LIMIT',
        offset,
        want,
      );
      for (let i = 0; i + 1 < flat.length && found.length < count; i += 2) {
        const job = parseMember(flat[i] as string, Number(flat[i + 1]));
        if (job === undefined) continue;
        if (from !== undefined && job.at === from.at && job.jobId >= from.jobId) continue;
        found.push(job);
      }
      if (flat.length < 2 * want) break;
      offset += want;
    }
    return found;
  }
}

// Job ids, operation names and account ids hold no space. A member sorts as its job id does (a space
// sorts before every character of an id), so `page` compares job ids where Redis compares members.
const memberOf = (job: TenantJob) => `${job.jobId} ${job.op} ${job.accountId ?? ''}`;

function parseMember(member: string, at: number): TenantJob | undefined {
  const [jobId, op, accountId] = member.split(' ');
  if (!jobId || !op) return undefined;
  return { jobId, op, accountId: accountId || undefined, at };
}
