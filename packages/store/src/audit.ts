import type { StoreKeys } from './keys';
import { defineScripts, type Scripted } from './lua';
import type { Redis } from './redis';

/** Audit entries are kept this long. */
export const AUDIT_RETENTION_DAYS = 90;
const RETENTION_MS = AUDIT_RETENTION_DAYS * 24 * 3_600_000;
/** Entries one page may look through for its filters before it answers what it found. */
const MAX_SCANNED = 10_000;

/**
 * One write or admin action of an API key, as the API answered it. Never a secret, a password, a
 * code or a message's text: ids only (the targets are an allow-list of id fields, id-shaped).
 */
export interface AuditRecord {
  keyId: string;
  keyLabel: string;
  /** The route's operation id (`chat-messages-send`, `webhooks-create`, …). */
  operation: string;
  method: string;
  /** The route's pattern (`/api/fansly/:accountId/chats/:chatId/messages`), never the path as sent. */
  route: string;
  accountId: string | null;
  /** The ids the request names, from its path and its body's id fields. */
  targets: Record<string, string | string[]>;
  idempotencyKey: string | null;
  requestId: string;
  /** The HTTP status it was answered with. */
  status: number;
  /** The job that ran (or runs) it, when there is one. */
  jobId: string | null;
}

/** An entry of the log: its record, its id (the cursor of the page after it) and its time. */
export interface AuditEntry extends AuditRecord {
  id: string;
  at: string;
}

export interface AuditPage {
  entries: AuditEntry[];
  nextCursor: string | null;
}

/** What a page of the audit log is asked for. */
export interface AuditQuery {
  /** The `nextCursor` of the page before (an entry's id); absent: from the newest. */
  cursor?: string | undefined;
  limit: number;
  /** Unix ms, both included. */
  fromMs?: number | undefined;
  toMs?: number | undefined;
  accountId?: string | undefined;
  keyId?: string | undefined;
  operation?: string | undefined;
  /** Only these accounts' entries (a key of some accounts only); absent: every entry. */
  accounts?: readonly string[] | undefined;
}

/**
 * The tenants' audit logs: one STREAM per tenant (`StoreKeys.auditLog`, the tenant's slot), field
 * `e` the entry's JSON, trimmed by MINID to `AUDIT_RETENTION_DAYS` at each append (one script, one
 * round trip), read newest first.
 */
export class AuditLog {
  private readonly scripts: Scripted<'audit_append'>;

  constructor(
    private readonly redis: Redis,
    private readonly keys: StoreKeys,
  ) {
    this.scripts = defineScripts(redis, new URL('./lua/', import.meta.url), { 'audit-append': 1 });
  }

  /** Appends an entry; its time is Redis' clock. Answers its id. */
  async append(tenantId: string, record: AuditRecord): Promise<string> {
    return String(
      await this.scripts.audit_append(this.keys.auditLog(tenantId), JSON.stringify(record), RETENTION_MS),
    );
  }

  /** A page of the tenant's entries, newest first, those the query's filters keep. */
  async page(tenantId: string, query: AuditQuery): Promise<AuditPage> {
    const key = this.keys.auditLog(tenantId);
    const read = (end: string, count: number) =>
      this.redis.xrevrange(key, end, query.fromMs === undefined ? '-' : String(query.fromMs), 'COUNT', count);
    const keep = (entry: AuditEntry) =>
      (query.accountId === undefined || entry.accountId === query.accountId) &&
      (query.keyId === undefined || entry.keyId === query.keyId) &&
      (query.operation === undefined || entry.operation === query.operation) &&
      (query.accounts === undefined ||
        (entry.accountId !== null && query.accounts.includes(entry.accountId)));
    const entries: AuditEntry[] = [];
    let end =
      query.cursor !== undefined ? `(${query.cursor}` : query.toMs === undefined ? '+' : String(query.toMs);
    let scanned = 0;
    const batch = Math.min(Math.max(query.limit * 2, 100), 1_000);
    while (scanned < MAX_SCANNED) {
      const found = await read(end, batch);
      for (const [id, fields] of found) {
        scanned++;
        const entry = toEntry(id, fields);
        if (entry === undefined || !keep(entry)) continue;
        entries.push(entry);
        if (entries.length === query.limit) {
          // More after this one? Only a look ahead tells.
          const more = await read(`(${id}`, 1);
          return { entries, nextCursor: more.length > 0 ? id : null };
        }
      }
      if (found.length < batch) return { entries, nextCursor: null };
      end = `(${found[found.length - 1]?.[0]}`;
    }
    return { entries, nextCursor: end.slice(1) };
  }
}

function toEntry(id: string, fields: string[]): AuditEntry | undefined {
  const at = fields.indexOf('e');
  if (at === -1) return undefined;
  const record = JSON.parse(fields[at + 1] ?? 'null') as AuditRecord | null;
  if (record === null) return undefined;
  return { id, at: new Date(Number(id.split('-')[0])).toISOString(), ...record };
}
