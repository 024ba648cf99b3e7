import type { Logger } from '@cg/config';
import type { AuditLog, AuditRecord } from '@cg/store';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiContext } from './context';
import { IDEMPOTENCY_HEADER } from './idempotency';
import { requestAccount } from './scope';

/** What an id looks like: the gateway's (`acct_…`, `job_…`, `key_…`), the platform's (digits). */
const ID = /^[A-Za-z0-9_-]{1,100}$/;
/** An `Idempotency-Key` as the write routes take it. */
const IDEMPOTENCY_KEY = /^[\x21-\x7E]{1,255}$/;
/** Ids one list field may contribute (the mass messages' lists take 100). */
const MAX_LISTED = 100;

/** Path parameters that name what a request acts on (`accountId` has a field of its own). */
const PATH_IDS = new Set([
  'chatId',
  'messageId',
  'listId',
  'postId',
  'fanId',
  'targetUserId',
  'albumId',
  'wallId',
  'scheduledMessageId',
  'automatedMessageId',
  'id',
  'deliveryId',
  'jobId',
  'keyId',
  'mediaId',
]);

/**
 * Body fields that name what a write acts on: ids only, never text (a message's, a password, a
 * code, a token). A field not listed here is never recorded, whatever it holds.
 */
const BODY_IDS = new Set([
  'id',
  'userId',
  'listId',
  'targetUserId',
  'chatId',
  'messageId',
  'groupId',
  'wallId',
  'wallIds',
  'pinWallIds',
  'postId',
  'fanId',
  'albumId',
  'mediaId',
  'mediaIds',
  'previewId',
  'payoutMethodId',
  'includeSubscriptionTierId',
  'includeListIds',
  'excludeListIds',
  'excludeUserIds',
  'endpointId',
  'keyId',
]);

/** An id as recorded: a string or a whole number of id shape, else nothing. */
function idOf(value: unknown): string | undefined {
  const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
  return typeof text === 'string' && ID.test(text) ? text : undefined;
}

/** The allow-listed id fields of `source`, each an id or a list of ids. */
function idsOf(source: unknown, names: ReadonlySet<string>, into: Record<string, string | string[]>): void {
  if (source === null || typeof source !== 'object' || Array.isArray(source)) return;
  for (const [name, value] of Object.entries(source)) {
    if (!names.has(name)) continue;
    if (Array.isArray(value)) {
      const ids = value.slice(0, MAX_LISTED).flatMap((item) => idOf(item) ?? []);
      if (ids.length > 0) into[name] = ids;
    } else {
      const id = idOf(value);
      if (id !== undefined) into[name] = id;
    }
  }
}

/**
 * The audit record of an answered request, or undefined for a request that is not audited: a GET
 * (or HEAD), a request of no route (no operation id), one without a known key (401).
 */
export function auditRecord(request: FastifyRequest, status: number): AuditRecord | undefined {
  if (request.method === 'GET' || request.method === 'HEAD') return undefined;
  const key = request.apiKey;
  const operation = (request.routeOptions.schema as { operationId?: string } | undefined)?.operationId;
  if (!key || operation === undefined) return undefined;
  const targets: Record<string, string | string[]> = {};
  idsOf(request.params, PATH_IDS, targets);
  idsOf(request.body, BODY_IDS, targets);
  const idempotencyKey = request.headers[IDEMPOTENCY_HEADER];
  return {
    keyId: key.keyId,
    keyLabel: key.label,
    operation,
    method: request.method,
    route: request.routeOptions.url ?? '',
    accountId: requestAccount(request, status),
    targets,
    idempotencyKey:
      typeof idempotencyKey === 'string' && IDEMPOTENCY_KEY.test(idempotencyKey) ? idempotencyKey : null,
    requestId: request.id,
    status,
    jobId: request.jobId,
  };
}

/**
 * The API's side of the audit log (packages/store `AuditLog`): one entry per answered write and admin
 * action, appended after the answer went out (one round trip, off the request's path). `close`
 * waits for the appends under way.
 */
export class AuditTrail {
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private readonly log: AuditLog,
    private readonly logger: Pick<Logger, 'error'>,
  ) {}

  record(request: FastifyRequest, reply: FastifyReply): void {
    const record = auditRecord(request, reply.statusCode);
    if (record === undefined) return;
    const appended = this.log
      .append(request.apiKey.tenantId, record)
      .catch((error: unknown) =>
        this.logger.error({ err: error, requestId: request.id }, 'audit entry not written'),
      )
      .finally(() => this.pending.delete(appended));
    this.pending.add(appended);
  }

  /** Waits for the appends under way, at most `timeoutMs`. */
  async close(timeoutMs = 3_000): Promise<void> {
    const late = new Promise<void>((done) => setTimeout(done, timeoutMs).unref());
    await Promise.race([Promise.all(this.pending), late]);
  }
}

/** Audits every answered write and admin action; nothing is installed when `AUDIT_ENABLED` is false. */
export function installAudit(app: FastifyInstance, context: ApiContext): void {
  const { audit } = context;
  if (audit === undefined) return;
  app.addHook('onResponse', (request, reply, done) => {
    audit.record(request, reply);
    done();
  });
}
