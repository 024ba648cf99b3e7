import { EnvelopeSchema, ErrorBodySchema, envelope, GatewayError } from '@cg/contract';
import {
  EVENT_NAMES,
  eventId,
  isEventCursor,
  isEventName,
  TEST_EVENT,
  urlProblem,
  type WebhookEndpoint,
} from '@cg/events';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type TSchema, Type } from 'typebox';
import type { ApiContext } from './context';

const Iso = (description: string) => Type.String({ format: 'date-time', description });
const Nullable = <T extends TSchema>(schema: T, description: string) =>
  Type.Union([schema, Type.Null()], { description });
const Ids = (description: string) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
    minItems: 1,
    maxItems: 1_000,
    uniqueItems: true,
    description,
  });

const Endpoint = Type.Object({
  id: Type.String({ description: 'endpoint id, `wh_…`' }),
  url: Type.String(),
  description: Type.String(),
  events: Nullable(Type.Array(Type.String()), 'the events it receives; null: every event'),
  accountIds: Nullable(
    Type.Array(Type.String()),
    "the tenant's accounts whose events it receives; null: all",
  ),
  enabled: Type.Boolean(),
  disabledReason: Nullable(Type.String(), 'why the gateway disabled it (410 Gone, failing too long)'),
  createdAt: Iso('creation time'),
  updatedAt: Iso('last change'),
});

const Event = Type.Object({
  id: Type.String({ description: '`evt_…`, deterministic from the occurrence: dedupe by it' }),
  event: Type.String({ description: 'the event name' }),
  accountId: Nullable(Type.String(), 'the service account id'),
  timestamp: Iso('when it happened'),
  data: Type.Unknown({ description: "the platform's object for this event, as received" }),
});

const Attempt = Type.Object({
  deliveryId: Type.String({ description: '`dlv_…`: one (endpoint, event)' }),
  eventId: Type.String(),
  event: Type.String(),
  attempt: Type.Integer({ description: 'attempt number of the delivery, from 1' }),
  status: Type.Union([Type.Literal('delivered'), Type.Literal('retrying'), Type.Literal('failed')], {
    description: 'delivered (2xx); retrying (another attempt at nextRetryAt); failed (given up)',
  }),
  httpStatus: Nullable(Type.Integer(), "the endpoint's HTTP status; null when none came"),
  error: Nullable(Type.String(), 'why it failed'),
  durationMs: Type.Integer(),
  nextRetryAt: Nullable(Iso('next attempt'), 'when the next attempt is due'),
  at: Iso('when the attempt started'),
  response: Type.String({ description: 'the response body, truncated to 1 KiB' }),
});

const Cursor = Type.Optional(Type.String({ maxLength: 64, description: 'nextCursor of the previous page' }));
const Limit = Type.Integer({ minimum: 1, maximum: 100, default: 50 });
const IdParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
const answers = (status: number, data: TSchema) => ({
  [status]: EnvelopeSchema(data),
  '4xx': ErrorBodySchema,
  '5xx': ErrorBodySchema,
});
const route = (operationId: string, summary: string, tag: 'webhooks' | 'events', rest: object) => ({
  schema: { operationId, summary, tags: [tag], security: [{ apiKey: [] }], ...rest },
});
const ok = (statusCode: number, message: string, data: unknown) => envelope({ statusCode, message, data });

interface EndpointBody {
  url?: string;
  events?: string[] | null;
  accountIds?: string[] | null;
  description?: string;
  enabled?: boolean;
}

/**
 * Webhook endpoints and the event log of the caller's tenant (docs/api.md, README "Webhooks and
 * events"). Our own store only: no platform call. Another tenant's endpoint, delivery or event is 404.
 */
export function registerWebhookRoutes(app: FastifyInstance, context: ApiContext): void {
  const { store, config } = context;
  // Read when a request comes, not now: the docs generator builds the routes without them.
  const webhooks = () => context.events.webhooks;
  const deliveries = () => context.events.deliveries;

  /** The caller's endpoint, or 404. */
  const endpointOf = async (request: FastifyRequest): Promise<WebhookEndpoint> => {
    const { id } = request.params as { id: string };
    const found = await webhooks().get(request.tenantId, id);
    if (!found) throw new GatewayError('NOT_FOUND', `webhook endpoint ${id} not found`);
    return found;
  };

  /** 400 for what the schema cannot say: the URL's destination, unknown events, other accounts. */
  const check = async (tenantId: string, body: EndpointBody): Promise<void> => {
    const bad = (message: string) => new GatewayError('BAD_REQUEST', message);
    if (body.url !== undefined) {
      const problem = urlProblem(body.url, config.WEBHOOK_ALLOW_PRIVATE);
      if (problem) throw bad(problem);
    }
    const unknown = (body.events ?? []).filter((name) => !isEventName(name));
    if (unknown.length > 0)
      throw bad(`unknown events: ${unknown.join(', ')}; known events: ${EVENT_NAMES.join(', ')}`);
    if (body.accountIds) {
      const own = new Set((await store.accounts.list(tenantId)).map((account) => account.accountId));
      const foreign = body.accountIds.filter((id) => !own.has(id));
      if (foreign.length > 0) throw bad(`accountIds are not accounts of this tenant: ${foreign.join(', ')}`);
    }
  };

  const body = {
    url: Type.String({ minLength: 1, maxLength: 2_048, description: 'https URL receiving the POSTs' }),
    events: Ids(`event names, default every event: ${EVENT_NAMES.join(', ')}`),
    accountIds: Ids("service account ids of the tenant; default all of the tenant's"),
    description: Type.String({ maxLength: 500 }),
  };

  app.post(
    '/webhooks',
    route('webhooks-create', 'Create a webhook endpoint; its signing secret is shown only here', 'webhooks', {
      body: Type.Object({
        url: body.url,
        events: Type.Optional(body.events),
        accountIds: Type.Optional(body.accountIds),
        description: Type.Optional(body.description),
      }),
      response: answers(
        201,
        Type.Object({
          ...Endpoint.properties,
          secret: Type.String({ description: '`whsec_` + base64: shown only here' }),
        }),
      ),
    }),
    async (request, reply) => {
      const input = request.body as EndpointBody & { url: string };
      await check(request.tenantId, input);
      const { endpoint, secret } = await webhooks().create(request.tenantId, input);
      return reply.status(201).send(ok(201, 'Webhook endpoint created', { ...endpoint, secret }));
    },
  );

  app.get(
    '/webhooks',
    route('webhooks-list', 'The webhook endpoints of the caller’s tenant', 'webhooks', {
      response: answers(200, Type.Object({ webhooks: Type.Array(Endpoint) })),
    }),
    async (request) => ok(200, 'Success', { webhooks: await webhooks().list(request.tenantId) }),
  );

  app.get(
    '/webhooks/:id',
    route('webhooks-get', 'One webhook endpoint with its delivery counters', 'webhooks', {
      params: IdParams,
      response: answers(
        200,
        Type.Object({
          ...Endpoint.properties,
          deliveries: Type.Object({
            delivered: Type.Integer({ description: 'deliveries answered 2xx' }),
            failedAttempts: Type.Integer({ description: 'attempts that failed' }),
            givenUp: Type.Integer({ description: 'deliveries given up' }),
            pending: Type.Integer({ description: 'deliveries waiting or being retried' }),
          }),
        }),
      ),
    }),
    async (request) => {
      const endpoint = await endpointOf(request);
      const counters = await webhooks().counters(request.tenantId, endpoint.id);
      return ok(200, 'Success', { ...endpoint, deliveries: counters });
    },
  );

  app.patch(
    '/webhooks/:id',
    route('webhooks-update', 'Change a webhook endpoint', 'webhooks', {
      params: IdParams,
      body: Type.Object({
        url: Type.Optional(body.url),
        events: Type.Optional(Nullable(body.events, 'event names; null: every event')),
        accountIds: Type.Optional(Nullable(body.accountIds, "account ids; null: all of the tenant's")),
        description: Type.Optional(body.description),
        enabled: Type.Optional(Type.Boolean({ description: 'false pauses deliveries; true resumes them' })),
      }),
      response: answers(200, Endpoint),
    }),
    async (request) => {
      const endpoint = await endpointOf(request);
      const patch = request.body as EndpointBody;
      await check(request.tenantId, patch);
      const updated = await webhooks().update(request.tenantId, endpoint.id, patch);
      if (!updated) throw new GatewayError('NOT_FOUND', `webhook endpoint ${endpoint.id} not found`);
      return ok(200, 'Webhook endpoint updated', updated);
    },
  );

  app.delete(
    '/webhooks/:id',
    route('webhooks-delete', 'Remove a webhook endpoint; its pending deliveries are dropped', 'webhooks', {
      params: IdParams,
      response: answers(200, Type.Object({ id: Type.String(), deleted: Type.Boolean() })),
    }),
    async (request) => {
      const endpoint = await endpointOf(request);
      const pending = await webhooks().remove(request.tenantId, endpoint.id);
      if (pending === null) throw new GatewayError('NOT_FOUND', `webhook endpoint ${endpoint.id} not found`);
      await deliveries().drop(pending);
      return ok(200, 'Webhook endpoint deleted', { id: endpoint.id, deleted: true });
    },
  );

  app.post(
    '/webhooks/:id/rotate-secret',
    route(
      'webhooks-rotate-secret',
      'A new signing secret; the old one keeps signing beside it for 24 h',
      'webhooks',
      {
        params: IdParams,
        response: answers(
          200,
          Type.Object({
            id: Type.String(),
            secret: Type.String({ description: 'the new secret: shown only here' }),
            previousSecretExpiresAt: Iso('until then deliveries carry a signature of each secret'),
          }),
        ),
      },
    ),
    async (request) => {
      const endpoint = await endpointOf(request);
      const secret = await webhooks().rotate(request.tenantId, endpoint.id);
      if (secret === null) throw new GatewayError('NOT_FOUND', `webhook endpoint ${endpoint.id} not found`);
      const until = new Date(Date.now() + 24 * 3_600_000).toISOString();
      return ok(200, 'Secret rotated', { id: endpoint.id, secret, previousSecretExpiresAt: until });
    },
  );

  const Queued = Type.Object({ deliveryId: Type.String(), eventId: Type.String() });

  app.post(
    '/webhooks/:id/test',
    route('webhooks-test', `Deliver a \`${TEST_EVENT}\` event to the endpoint now`, 'webhooks', {
      params: IdParams,
      response: answers(200, Queued),
    }),
    async (request) => {
      const endpoint = await endpointOf(request);
      if (!endpoint.enabled)
        throw new GatewayError('CONFLICT', `webhook endpoint ${endpoint.id} is disabled`);
      const event = {
        id: eventId([TEST_EVENT, endpoint.id, Date.now(), Math.random()]),
        event: TEST_EVENT,
        accountId: null,
        timestamp: new Date().toISOString(),
        data: { endpointId: endpoint.id, message: 'a test event from creator-gateway' },
      };
      const [deliveryId] = await deliveries().enqueue(request.tenantId, [endpoint.id], event, {
        manual: true,
        requestId: request.id,
      });
      return ok(200, 'Test event queued', { deliveryId, eventId: event.id });
    },
  );

  app.get(
    '/webhooks/:id/deliveries',
    route('webhooks-deliveries', 'Delivery attempts of an endpoint, newest first', 'webhooks', {
      params: IdParams,
      querystring: Type.Object({
        cursor: Cursor,
        status: Type.Optional(
          Type.Union([Type.Literal('delivered'), Type.Literal('retrying'), Type.Literal('failed')]),
        ),
        limit: Limit,
      }),
      response: answers(
        200,
        Type.Object({
          deliveries: Type.Array(Attempt),
          nextCursor: Nullable(Type.String(), 'pass as cursor for older attempts; null at the end'),
        }),
      ),
    }),
    async (request) => {
      const endpoint = await endpointOf(request);
      const query = request.query as { cursor?: string; status?: string; limit: number };
      if (query.cursor !== undefined && !isEventCursor(query.cursor))
        throw new GatewayError('BAD_REQUEST', 'cursor is not one this route answered');
      const page = await deliveries().attempts(request.tenantId, endpoint.id, query);
      return ok(200, 'Success', { deliveries: page.attempts, nextCursor: page.nextCursor });
    },
  );

  app.post(
    '/webhooks/:id/deliveries/:deliveryId/retry',
    route('webhooks-delivery-retry', 'Deliver that delivery’s event again now', 'webhooks', {
      params: Type.Object({
        id: Type.String({ maxLength: 100 }),
        deliveryId: Type.String({ maxLength: 100 }),
      }),
      response: answers(200, Queued),
    }),
    async (request) => {
      const endpoint = await endpointOf(request);
      const { deliveryId } = request.params as { deliveryId: string };
      const event = await deliveries().retry(request.tenantId, endpoint.id, deliveryId, request.id);
      if (!event)
        throw new GatewayError(
          'NOT_FOUND',
          `delivery ${deliveryId} not found (deliveries are kept for a limited time)`,
        );
      return ok(200, 'Delivery queued', { deliveryId, eventId: event.id });
    },
  );

  app.get(
    '/events',
    route('events-list', 'The tenant’s events, oldest first from the cursor', 'events', {
      querystring: Type.Object({
        cursor: Cursor,
        event: Type.Optional(Type.String({ maxLength: 100, description: 'only this event name' })),
        accountId: Type.Optional(Type.String({ maxLength: 100, description: 'only this account’s' })),
        limit: Limit,
      }),
      response: answers(
        200,
        Type.Object({
          events: Type.Array(Event),
          nextCursor: Nullable(Type.String(), 'pass as cursor for the next page; null at the end'),
        }),
      ),
    }),
    async (request) => {
      const query = request.query as { cursor?: string; event?: string; accountId?: string; limit: number };
      if (query.cursor !== undefined && !isEventCursor(query.cursor))
        throw new GatewayError('BAD_REQUEST', 'cursor is not one this route answered');
      if (query.event !== undefined && !isEventName(query.event))
        throw new GatewayError(
          'BAD_REQUEST',
          `unknown event ${query.event}; known events: ${EVENT_NAMES.join(', ')}`,
        );
      return ok(200, 'Success', await context.events.log.page(request.tenantId, query));
    },
  );
}
