import { GatewayError } from '@cg/contract';
import type { OperationDef, OperationSchemas } from '@cg/operations';
import { checkLoginCountry } from '@cg/platform-access';
import { type JobPayload, laneOfAccount } from '@cg/queue';
import { newId, sha256 } from '@cg/store';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Value } from 'typebox/value';
import { sendSubmitted } from './answers';
import type { ApiContext } from './context';
import { IDEMPOTENCY_HEADER, submitOnce, takesIdempotencyKey } from './idempotency';
import { parsePrefer, waitBudgetMs } from './prefer';
import { reaches } from './scope';
import type { TtlCache } from './ttl-cache';

// The submit path: a request of an operation checked, its account resolved, its job's payload made
// and queued. The operation routes run it whole (`runOperation`); the media routes queue their
// internal operations through the same account and payload steps.

export type RequestParts = { params?: unknown; query?: unknown; body?: unknown };
export type Operation = OperationDef<OperationSchemas>;

/** A service account and its lane (its platform account's: `JobPayload.lane`). */
export interface LanedAccount {
  accountId: string;
  lane: string;
}

/** Accounts this API process found connected, by `connectedKey`; `DELETE /accounts/{id}` drops one. */
export type ConnectedAccounts = TtlCache<LanedAccount>;

/** Every service account connected to one platform account shares its lane. */
export const connectedKey = (tenantId: string, accountId: string) => `${tenantId}\n${accountId}`;

/**
 * Fields and query parameters the operation does not know (all of them, where it takes no body or
 * no query) are dropped before the input is queued: job data holds only what the operation reads,
 * however large a body the caller sent (up to the body limit), and a repeated write is the same
 * request whatever else came with it (`Idempotency-Key`).
 */
function inputOf(op: Operation, request: FastifyRequest): RequestParts {
  return {
    params: request.params,
    ...(op.schemas.querystring ? { query: Value.Clean(op.schemas.querystring, request.query) } : {}),
    ...(op.schemas.body && request.body !== undefined
      ? { body: Value.Clean(op.schemas.body, request.body) }
      : {}),
  };
}

/** One request of an operation: checked, queued (once, with an Idempotency-Key), answered. */
export async function runOperation(
  op: Operation,
  request: FastifyRequest,
  reply: FastifyReply,
  context: ApiContext,
  connected: ConnectedAccounts,
) {
  const input = inputOf(op, request);
  const reason = op.check?.(input as never);
  if (reason !== undefined) throw new GatewayError('BAD_REQUEST', reason);
  if (op.country) await checkLoginCountry(context.egress, context.proxies, op.country(input as never));
  const account = await resolveAccount(op, request, input, context, connected);
  const payloadFor = (jobId: string | undefined) => payloadOf(op, request, input, account, context, jobId);
  const wait = waitBudgetMs(parsePrefer(request.headers.prefer), context.config.SYNC_WAIT_MS);
  // Writes only: a read is as good repeated as replayed.
  const idempotencyKey = takesIdempotencyKey(op)
    ? (request.headers[IDEMPOTENCY_HEADER] as string | undefined)
    : undefined;
  if (idempotencyKey !== undefined)
    return submitOnce(context, request, reply, {
      key: idempotencyKey,
      request: { op: op.name, accountId: account?.accountId, input },
      waitMs: wait,
      payloadFor,
    });
  // Sealed input names its job (the cipher's context), so its id is chosen here; others get theirs
  // from the queue (a read may travel in a batch: `<batch>-<n>`).
  const jobId = op.sealInput ? newId('job') : undefined;
  const answered = await context.queue.submit(payloadFor(jobId), wait, jobId);
  return sendSubmitted(reply, request, answered.jobId, answered.result, context);
}

/** What the job carries: the operation, its account's lane, its input (sealed where it must be). */
export function payloadOf(
  op: Operation,
  request: FastifyRequest,
  input: RequestParts,
  account: LanedAccount | undefined,
  context: ApiContext,
  jobId: string | undefined,
): JobPayload {
  return {
    op: op.name,
    tenantId: request.tenantId,
    ...(account ?? (op.lane ? { lane: op.lane(input as never, request.tenantId) } : {})),
    // Sealed with the job id as context: the blob opens only for this job.
    ...(op.sealInput && jobId !== undefined
      ? { input: {}, sealed: context.keyring.sealJson(input, jobId) }
      : { input }),
    at: Date.now(),
    requestId: request.id,
    // The key's id (never the key): the usage of the job's platform calls is counted under it.
    ...(request.apiKey ? { keyId: request.apiKey.keyId } : {}),
    ...(op.write ? { write: true } : {}),
    ...(op.gapped ? { gapped: true } : {}),
    // Shared within one service account only: the lane (and so the dedupe key's scope) may be shared
    // by other tenants' accounts.
    ...(op.dedupe
      ? { dedupe: sha256(`${op.name}\n${account?.accountId ?? ''}\n${op.dedupe(input as never)}`) }
      : {}),
  };
}

/**
 * The account whose session runs the job. Checked here, before anything is enqueued: an account of
 * another tenant is 404 exactly like one that does not exist. An account found connected is trusted
 * for `ACCOUNT_CACHE_MS` (until this process disconnects it): the worker reads it again before any
 * platform call, and answers the same 404 or 409 should it have been removed (by another API
 * process) or lost its session meanwhile.
 */
export async function resolveAccount(
  op: Operation,
  request: FastifyRequest,
  input: RequestParts,
  context: ApiContext,
  connected: ConnectedAccounts,
): Promise<LanedAccount | undefined> {
  const account = await findAccount(op, request, input, context, connected);
  // The request's account, for its usage and its audit entry (usage.ts, audit.ts).
  if (account !== undefined) request.accountId = account.accountId;
  return account;
}

async function findAccount(
  op: Operation,
  request: FastifyRequest,
  input: RequestParts,
  { store }: ApiContext,
  connected: ConnectedAccounts,
): Promise<LanedAccount | undefined> {
  if (op.session === 'none') return undefined;
  const named =
    op.session === 'path'
      ? (input.params as { accountId: string }).accountId
      : (input.query as { accountId?: string } | undefined)?.accountId;
  if (named !== undefined) {
    const cacheKey = connectedKey(request.tenantId, named);
    let laned = connected.get(cacheKey);
    if (laned === undefined) {
      laned = await connectedAccount(store, request, named);
      connected.set(cacheKey, laned);
    }
    // Outside the key's accounts: the very answer of an account that does not exist.
    if (!reaches(request.apiKey, laned.accountId)) throw accountNotFound(named);
    return laned;
  }
  const usable = await store.accounts.firstConnected(request.tenantId, request.apiKey.accounts ?? undefined);
  if (!usable)
    throw new GatewayError('ACCOUNT_REQUIRED', 'this lookup needs a connected account: call /connect first');
  return { accountId: usable.accountId, lane: laneOfAccount(usable) };
}

const accountNotFound = (named: string) => new GatewayError('NOT_FOUND', `account ${named} not found`);

/**
 * The tenant's connected account `named` (its service or platform account id), or 404 / 409. One
 * outside the key's accounts is 404 before its state is looked at: a 409 would tell that it exists.
 */
async function connectedAccount(
  store: ApiContext['store'],
  request: FastifyRequest,
  named: string,
): Promise<LanedAccount> {
  const account = await store.accounts.find(request.tenantId, named);
  if (!account || !reaches(request.apiKey, account.accountId)) throw accountNotFound(named);
  if (account.status === 'reauth_required')
    throw new GatewayError('REAUTH_REQUIRED', `account ${named} needs a new login: connect it again`);
  return { accountId: account.accountId, lane: laneOfAccount(account) };
}

/** The account of an operation that always runs on one (`session` is not `none`). */
export async function requiredAccount(
  op: Operation,
  request: FastifyRequest,
  input: RequestParts,
  context: ApiContext,
  connected: ConnectedAccounts,
): Promise<LanedAccount> {
  const account = await resolveAccount(op, request, input, context, connected);
  if (!account) throw new GatewayError('INTERNAL', `${op.name} needs an account`);
  return account;
}
