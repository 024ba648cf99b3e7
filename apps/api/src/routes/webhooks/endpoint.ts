import { GatewayError } from '@cg/contract';
import { destinationProblem, EVENT_NAMES, isEventName, type WebhookEndpoint } from '@cg/events';
import { NonEmpty, Text } from '@cg/operations';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { ApiContext } from '../../context';
import { within } from '../../scope';

// What the webhook routes share: the endpoint named by the path, the checks of a body, its fields.
// Our own store only: no platform call. Another tenant's endpoint, delivery or event is 404.

/** What a create or update body may carry. */
export interface EndpointBody {
  url?: string;
  events?: string[] | null;
  accountIds?: string[] | null;
  description?: string;
  enabled?: boolean;
}

const Ids = (description: string) =>
  Type.Array(NonEmpty(undefined, { maxLength: 100 }), {
    minItems: 1,
    maxItems: 1_000,
    uniqueItems: true,
    description,
  });

/** The fields of a create or update body (each route says which are optional). */
export const EndpointFields = {
  url: NonEmpty(
    'https URL receiving the POSTs; a host that is or resolves to a private, loopback or link-local address is refused, here and at every delivery (README "Webhooks and events")',
    { maxLength: 2_048 },
  ),
  events: Ids(`event names, default every event: ${EVENT_NAMES.join(', ')}`),
  accountIds: Ids("service account ids of the tenant; default all of the tenant's"),
  description: Text(undefined, { maxLength: 500, long: true }),
};

export const IdParams = Type.Object({ id: Type.String({ maxLength: 100 }) });

/** A delivery queued now (a test event, a retry). */
export const Queued = Type.Object({ deliveryId: Type.String(), eventId: Type.String() });

export const endpointNotFound = (id: string) =>
  new GatewayError('NOT_FOUND', `webhook endpoint ${id} not found`);

/**
 * The caller's endpoint named by the path, or 404. The store is read when a request comes: the docs
 * generator builds the routes without one.
 */
export async function callerEndpoint(
  request: FastifyRequest,
  { events }: ApiContext,
): Promise<WebhookEndpoint> {
  const { id } = request.params as { id: string };
  const found = await events.webhooks.get(request.tenantId, id);
  if (!found || !endpointVisible(request, found)) throw endpointNotFound(id);
  return found;
}

/**
 * Whether the caller sees an endpoint: a key of every account sees each; a key of some accounts
 * those that receive only its accounts' events (an endpoint of every account is not one of them).
 */
export const endpointVisible = (request: FastifyRequest, endpoint: WebhookEndpoint) =>
  within(request, endpoint.accountIds);

/**
 * 400 for what the schema cannot say: the URL's destination (its name resolved too), unknown
 * events, other accounts.
 */
export async function checkEndpoint(
  tenantId: string,
  body: EndpointBody,
  context: ApiContext,
): Promise<void> {
  const bad = (message: string) => new GatewayError('BAD_REQUEST', message);
  if (body.url !== undefined) {
    const problem = await destinationProblem(body.url, {
      allowPrivate: context.config.WEBHOOK_ALLOW_PRIVATE,
      lookup: context.webhookLookup,
    });
    if (problem) throw bad(problem);
  }
  const unknown = (body.events ?? []).filter((name) => !isEventName(name));
  if (unknown.length > 0)
    throw bad(`unknown events: ${unknown.join(', ')}; known events: ${EVENT_NAMES.join(', ')}`);
  if (body.accountIds) {
    const own = new Set((await context.store.accounts.list(tenantId)).map((account) => account.accountId));
    const foreign = body.accountIds.filter((id) => !own.has(id));
    if (foreign.length > 0) throw bad(`accountIds are not accounts of this tenant: ${foreign.join(', ')}`);
  }
}
