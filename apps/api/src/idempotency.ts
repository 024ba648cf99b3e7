import { GatewayError } from '@cg/contract';
import type { OperationDef, OperationSchemas } from '@cg/operations';
import { type JobPayload, jobCancelled, type WaitResult } from '@cg/queue';
import { newId } from '@cg/store';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { sendResult, sendSubmitted } from './answers';
import type { ApiContext } from './context';

/** The header a write may carry (Stripe's and the IETF draft's name); HTTP lowercases it. */
export const IDEMPOTENCY_HEADER = 'idempotency-key';

/**
 * The operations that take a key: writes to a connected account. Not the logins (`/connect`,
 * `/verify-2fa`): connecting again keeps the account's id, and their input is a password. Not an
 * operation whose requests share jobs (`dedupe`): the key's job must be the one its request adds.
 */
export const takesIdempotencyKey = (op: OperationDef<OperationSchemas>) =>
  op.write === true && op.session !== 'none' && op.dedupe === undefined;

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
 * Runs a write under the caller's `Idempotency-Key`: the first request with a key is queued; a
 * request repeating the key and the request is answered by that job (its result, or 202 with its
 * status URL while it runs), marked `Idempotent-Replayed: true`, and sends nothing to the platform.
 * The key is the tenant's: another tenant's same key is another key. A key repeated with another
 * request (another operation, account or input) is 422; a key whose first request is being queued
 * at that moment is 409 with `Retry-After: 1`. A request refused before its job was added (a full
 * backlog: 429) gives its key back. `payloadFor` builds the job's payload for the id it gets.
 */
export async function submitOnce(
  context: ApiContext,
  request: FastifyRequest,
  reply: FastifyReply,
  work: {
    key: string;
    /** What makes two requests the same: the operation, the account, the input. */
    request: { op: string; accountId: string | undefined; input: unknown };
    waitMs: number;
    payloadFor: (jobId: string) => JobPayload;
  },
): Promise<FastifyReply> {
  const { key, waitMs } = work;
  const keys = context.queue.idempotency;
  // Keyed digests: the input may hold a 2FA code, which a plain hash would let anyone reading Redis
  // find by trying every code.
  const fingerprints = context.keyring.digests(
    `${work.request.op}\n${work.request.accountId ?? ''}\n${canonicalJson(work.request.input)}`,
  );
  const claim = await keys.claim(request.tenantId, key, fingerprints, newId('job'));
  if (claim.kind === 'mismatch')
    throw new GatewayError(
      'IDEMPOTENCY_KEY_REUSED',
      'this Idempotency-Key was sent with a different request: use a new key for a new request',
    );
  if (claim.kind === 'pending')
    throw new GatewayError(
      'IDEMPOTENCY_KEY_IN_USE',
      'a request with this Idempotency-Key is being queued right now: try again in a moment',
      1,
    );
  if (claim.kind === 'lost')
    throw new GatewayError(
      'UPSTREAM_OUTCOME_UNKNOWN',
      `the job of this Idempotency-Key (${claim.jobId}) is no longer kept, and its write may have been applied: check before repeating it with a new key`,
    );
  if (claim.kind === 'cancelled') {
    reply.header('idempotent-replayed', 'true');
    throw jobCancelled();
  }
  if (claim.kind === 'replay') {
    reply.header('idempotent-replayed', 'true');
    // The first request's job: its lines name the first request's id.
    request.log.debug({ jobId: claim.jobId }, 'idempotent replay');
    // Asked to answer at once (`respond-async`, `wait=0`): 202 with the job's state, as the first
    // request got, even when the job has ended.
    const result: WaitResult =
      waitMs > 0
        ? await context.queue.follow(claim.jobId, waitMs)
        : { state: 'pending', jobState: (await context.queue.get(claim.jobId))?.state ?? 'unknown' };
    return sendResult(reply, request, claim.jobId, result, context);
  }
  const { jobId } = claim;
  let placed: WaitResult;
  try {
    placed = (await context.queue.submit(work.payloadFor(jobId), 0, jobId)).result;
  } catch (error) {
    // Refused (or Redis failed) before its job existed: a key that named no job before may be used
    // again at once (`release`). Should the release fail, the next request takes the key over once
    // the claim is older than the window.
    await keys.release(request.tenantId, key, claim).catch(() => undefined);
    throw error;
  }
  // Waited for as a job someone else may have added: under a claimed id, a slow claim's add can
  // land first, its job already ended when this one's add changes nothing.
  const result = waitMs > 0 ? await context.queue.follow(jobId, waitMs) : placed;
  return sendSubmitted(reply, request, jobId, result, context);
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
