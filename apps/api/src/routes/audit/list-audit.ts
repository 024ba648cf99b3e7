import { GatewayError } from '@cg/contract';
import { AUDIT_RETENTION_DAYS, type AuditQuery } from '@cg/store';
import { Type } from 'typebox';
import { Cursor, checkCursor, Limit, Page } from '../events/paging';
import type { ApiRoute } from '../route';
import { answers, Iso, Nullable, ok, routeSchema } from '../schema';

const AuditEntrySchema = Type.Object({
  id: Type.String({ description: 'the entry’s id in the log' }),
  at: Iso('when the request was answered'),
  keyId: Type.String({ description: 'the API key that made the request' }),
  keyLabel: Type.String({ description: 'its label then' }),
  operation: Type.String({ description: 'the route’s operation id' }),
  method: Type.String(),
  route: Type.String({
    description: 'the route’s pattern, e.g. /api/fansly/:accountId/chats/:chatId/messages',
  }),
  accountId: Nullable(Type.String(), 'the service account it acted on'),
  targets: Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())]), {
    description:
      'the ids the request named, from its path and its body’s id fields (chatId, listId, postId, userId, …); never text',
  }),
  idempotencyKey: Nullable(Type.String(), 'its Idempotency-Key'),
  requestId: Type.String({ description: 'its X-Request-Id' }),
  status: Type.Integer({ description: 'the HTTP status it was answered with' }),
  jobId: Nullable(Type.String(), 'the job that ran it (or runs it, after a 202)'),
});

const DESCRIPTION = [
  `Every write and admin action the API answered (every method but GET, of a known key: operations, connections, disconnections, webhooks), refused ones included, kept ${AUDIT_RETENTION_DAYS} days:`,
  'when, which key (id and label), the operation, the account, the ids it named, its Idempotency-Key, its request id, its status and its job.',
  'Never a secret, a password, a code or a message’s text: the ids are an allow-list of id fields, each id-shaped.',
  'An admin key sees the entries of the accounts it reaches (a key of every account: all of them); any other key only its own (another keyId is 403).',
  'An entry is written just after its answer goes out: one a process could not write before it died is missing.',
].join(' ');

/** `GET /audit`: the tenant's audit log, newest first from the cursor. */
export const listAudit: ApiRoute = {
  name: 'audit-list',
  method: 'GET',
  url: '/audit',
  access: 'read',
  paging: { cursor: ['data', 'nextCursor'], items: ['data', 'entries'] },
  schema: routeSchema('The tenant’s audit log of writes and admin actions, newest first', 'audit', {
    description: DESCRIPTION,
    querystring: Type.Object({
      accountId: Type.Optional(Type.String({ maxLength: 100, description: 'only this account’s' })),
      keyId: Type.Optional(Type.String({ maxLength: 100, description: 'only this key’s' })),
      operation: Type.Optional(Type.String({ maxLength: 100, description: 'only this operation id' })),
      from: Type.Optional(Iso('only entries at or after this time')),
      to: Type.Optional(Iso('only entries at or before this time')),
      cursor: Cursor,
      limit: Limit,
    }),
    response: answers(
      200,
      Page('entries', AuditEntrySchema, 'pass as cursor for older entries; null at the end'),
    ),
  }),
  async handler(request, _reply, { context }) {
    const query = request.query as {
      accountId?: string;
      keyId?: string;
      operation?: string;
      from?: string;
      to?: string;
      cursor?: string;
      limit: number;
    };
    checkCursor(query.cursor);
    const fromMs = query.from === undefined ? undefined : Date.parse(query.from);
    const toMs = query.to === undefined ? undefined : Date.parse(query.to);
    if (fromMs !== undefined && toMs !== undefined && fromMs > toMs)
      throw new GatewayError('BAD_REQUEST', 'from must not be after to');
    const key = request.apiKey;
    const admin = key.access === 'admin';
    if (!admin && query.keyId !== undefined && query.keyId !== key.keyId)
      throw new GatewayError(
        'FORBIDDEN',
        'this API key sees only its own audit entries (an admin key sees all)',
      );
    const filter: AuditQuery = {
      ...query,
      fromMs,
      toMs,
      keyId: admin ? query.keyId : key.keyId,
      accounts: admin ? (key.accounts ?? undefined) : undefined,
    };
    return ok(200, 'Success', await context.store.audit.page(request.tenantId, filter));
  },
};
