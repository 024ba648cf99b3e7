import { AcceptedSchema, EnvelopeSchema, ErrorBodySchema, GatewayError } from '@cg/contract';
import { allOperations, type OperationDef, type OperationSchemas } from '@cg/operations';
import { type JobPayload, laneOfAccount } from '@cg/queue';
import { newId, sha256 } from '@cg/store';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Value } from 'typebox/value';
import { sendSubmitted } from './answers';
import type { ApiContext } from './context';
import { IDEMPOTENCY_HEADER, submitOnce, takesIdempotencyKey, WriteHeadersSchema } from './idempotency';
import { parsePrefer, waitBudgetMs } from './prefer';
import type { TtlCache } from './ttl-cache';

type RequestParts = { params?: unknown; query?: unknown; body?: unknown };
type Operation = OperationDef<OperationSchemas>;

/** A service account and its lane (its platform account's: `JobPayload.lane`). */
export interface LanedAccount {
  accountId: string;
  lane: string;
}

/** Accounts this API process found connected, by `connectedKey`; `DELETE /accounts/{id}` drops one. */
export type ConnectedAccounts = TtlCache<LanedAccount>;

/** Every service account connected to one platform account shares its lane. */
export const connectedKey = (tenantId: string, accountId: string) => `${tenantId}\n${accountId}`;

/** One route per operation of the registry: validate, check the account, enqueue, answer. */
export function registerOperationRoutes(
  app: FastifyInstance,
  context: ApiContext,
  connected: ConnectedAccounts,
): void {
  for (const op of allOperations) {
    if (op.method === 'GET') refuseHead(app, op);
    app.route({
      method: op.method,
      url: op.path,
      exposeHeadRoute: false,
      schema: routeSchema(op),
      handler: (request, reply) => runOperation(op, request, reply, context, connected),
    });
  }
}

/**
 * Fastify would answer HEAD by running the GET: a platform call (media stats: the account's
 * one-minute gap) for an answer without a body. HEAD is not allowed on operations.
 */
function refuseHead(app: FastifyInstance, op: Operation): void {
  app.route({
    method: 'HEAD',
    url: op.path,
    schema: { hide: true },
    // Not a method the path takes (`Allow` of a 405 elsewhere leaves it out).
    config: { refuses: true },
    handler: async (_request, reply) => reply.code(405).header('allow', 'GET').send(),
  });
}

/** The route's validation and OpenAPI schema, from the operation's definition. */
function routeSchema(op: Operation) {
  return {
    operationId: op.name,
    summary: op.summary,
    ...(op.description === undefined ? {} : { description: op.description }),
    tags: op.tags,
    security: [{ apiKey: [] }],
    ...(op.schemas.params ? { params: op.schemas.params } : {}),
    ...(op.schemas.querystring ? { querystring: op.schemas.querystring } : {}),
    ...(op.schemas.body ? { body: op.schemas.body } : {}),
    ...(takesIdempotencyKey(op) ? { headers: WriteHeadersSchema } : {}),
    response: {
      [op.successStatus]: EnvelopeSchema(op.schemas.data),
      ...(op.picksStatus
        ? { 200: EnvelopeSchema(op.schemas.data), 201: EnvelopeSchema(op.schemas.data) }
        : {}),
      202: AcceptedSchema,
      '4xx': ErrorBodySchema,
      '5xx': ErrorBodySchema,
    },
  };
}

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
async function runOperation(
  op: Operation,
  request: FastifyRequest,
  reply: FastifyReply,
  context: ApiContext,
  connected: ConnectedAccounts,
) {
  const input = inputOf(op, request);
  const reason = op.check?.(input as never);
  if (reason !== undefined) throw new GatewayError('BAD_REQUEST', reason);
  if (op.country) await checkEgress(context, op.country(input as never));
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
 * With egress proxies configured, a login from a country that has none is refused (400), and one
 * whose country's proxies are all down waits for the first to come back (503), unless the fallback
 * is direct.
 */
async function checkEgress({ egress, store }: ApiContext, country: string): Promise<void> {
  if (egress === null) return;
  const proxies = egress.byCountry.get(country);
  if (proxies === undefined) {
    const configured = [...egress.byCountry.keys()].join(', ');
    throw new GatewayError(
      'BAD_REQUEST',
      `countryCode ${country} has no egress proxy; configured countries: ${configured}`,
    );
  }
  if (egress.fallback === 'direct') return;
  const down = await store.egress.downFor(proxies.map((proxy) => proxy.id));
  if (down.every((ms) => ms > 0)) {
    const seconds = Math.ceil(Math.min(...down) / 1000);
    throw new GatewayError(
      'UPSTREAM_UNAVAILABLE',
      `every egress proxy of country ${country} is down; try again in ${seconds} s`,
      seconds,
    );
  }
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
    const known = connected.get(cacheKey);
    if (known !== undefined) return known;
    const account = await store.accounts.get(request.tenantId, named);
    if (!account) throw new GatewayError('NOT_FOUND', `account ${named} not found`);
    if (account.status === 'reauth_required') {
      throw new GatewayError('REAUTH_REQUIRED', `account ${named} needs a new login: connect it again`);
    }
    const laned = { accountId: account.accountId, lane: laneOfAccount(account) };
    connected.set(cacheKey, laned);
    return laned;
  }
  const usable = await store.accounts.firstConnected(request.tenantId);
  if (!usable)
    throw new GatewayError('ACCOUNT_REQUIRED', 'this lookup needs a connected account: call /connect first');
  return { accountId: usable.accountId, lane: laneOfAccount(usable) };
}
