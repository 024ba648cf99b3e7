import { GatewayError } from '@cg/contract';
import type { OperationDef, OperationSchemas } from '@cg/operations';
import type { JobPayload } from '@cg/queue';
import { sha256 } from '@cg/store';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { sendResult } from './answers';
import type { ApiContext } from './context';

/** The header a write may carry (Stripe's and the IETF draft's name); HTTP lowercases it. */
export const IDEMPOTENCY_HEADER = 'idempotency-key';

/**
 * The operations that take a key: writes to a connected account. Not the logins (`/connect`,
 * `/verify-2fa`): connecting again keeps the account's id, and their input is a password.
 */
export const takesIdempotencyKey = (op: OperationDef<OperationSchemas>) =>
  op.write === true && op.session !== 'none';

/** The headers of a write route: an optional `Idempotency-Key`, 1 to 255 visible ASCII characters. */
export const WriteHeadersSchema = Type.Object({
  [IDEMPOTENCY_HEADER]: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x21-\\x7E]+$',
      description: '1 to 255 visible ASCII characters',
    }),
  ),
});

/**
 * Runs a write under the caller's `Idempotency-Key`: the first request with a key is queued as
 * `jobId`; a request repeating the key and the request is answered by that job (its result, or 202
 * with its status URL while it runs), marked `Idempotent-Replayed: true`, and sends nothing to the
 * platform. The key is the tenant's: another tenant's same key is another key. A key repeated with
 * another request (another operation, account or input) is 422; a key whose first request is being
 * queued at that moment is 409 with `Retry-After: 1`. A request refused before its job was added
 * (a full backlog: 429) gives its key back.
 */
export async function submitOnce(
  context: ApiContext,
  request: FastifyRequest,
  reply: FastifyReply,
  work: { key: string; payload: JobPayload; input: unknown; waitMs: number; jobId: string },
): Promise<FastifyReply> {
  const { key, payload, waitMs, jobId } = work;
  const keys = context.queue.idempotency;
  const fingerprint = sha256(`${payload.op}\n${payload.accountId ?? ''}\n${canonicalJson(work.input)}`);
  const claim = await keys.claim(request.tenantId, key, fingerprint, jobId);
  if (claim.kind === 'mismatch')
    throw new GatewayError(
      'IDEMPOTENCY_KEY_REUSED',
      'this Idempotency-Key was sent with a different request: use a new key for a new request',
    );
  if (claim.kind === 'pending')
    throw new GatewayError(
      'CONFLICT',
      'a request with this Idempotency-Key is being queued right now: try again in a moment',
      1,
    );
  if (claim.kind === 'replay') {
    reply.header('idempotent-replayed', 'true');
    const result = await context.queue.follow(claim.jobId, waitMs);
    return sendResult(reply, request, claim.jobId, result, context);
  }
  let answered: Awaited<ReturnType<ApiContext['queue']['submit']>>;
  try {
    answered = await context.queue.submit(payload, waitMs, jobId);
  } catch (error) {
    // Refused (or Redis failed) before its job existed: the key may be used again at once. Should
    // this fail too, the key is free again once the claim is older than the lanes' lease.
    await keys.release(request.tenantId, key, jobId).catch(() => undefined);
    throw error;
  }
  return sendResult(reply, request, answered.jobId, answered.result, context);
}

/** JSON with object keys sorted, so that the same input sent with its fields in another order matches. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const fields = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`);
    return `{${fields.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
