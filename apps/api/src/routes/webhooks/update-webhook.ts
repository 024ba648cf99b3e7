import { WebhookEndpoint } from '@cg/events';
import { Type } from 'typebox';
import type { ApiRoute } from '../route';
import { answers, Nullable, ok, routeSchema } from '../schema';
import {
  callerEndpoint,
  checkEndpoint,
  type EndpointBody,
  EndpointFields,
  endpointNotFound,
  IdParams,
} from './endpoint';

/** `PATCH /webhooks/{id}`: changes an endpoint; `enabled` pauses and resumes its deliveries. */
export const updateWebhook: ApiRoute = {
  name: 'webhooks-update',
  method: 'PATCH',
  url: '/webhooks/:id',
  access: 'admin',
  everyAccount: true,
  schema: routeSchema('Change a webhook endpoint', 'webhooks', {
    params: IdParams,
    body: Type.Object({
      url: Type.Optional(EndpointFields.url),
      events: Type.Optional(Nullable(EndpointFields.events, 'event names; null: every event')),
      accountIds: Type.Optional(
        Nullable(EndpointFields.accountIds, "account ids; null: all of the tenant's"),
      ),
      description: Type.Optional(EndpointFields.description),
      enabled: Type.Optional(Type.Boolean({ description: 'false pauses deliveries; true resumes them' })),
    }),
    response: answers(200, WebhookEndpoint),
  }),
  async handler(request, _reply, { context }) {
    const endpoint = await callerEndpoint(request, context);
    const patch = request.body as EndpointBody;
    await checkEndpoint(request.tenantId, patch, context);
    const updated = await context.events.webhooks.update(request.tenantId, endpoint.id, patch);
    if (!updated) throw endpointNotFound(endpoint.id);
    return ok(200, 'Webhook endpoint updated', updated);
  },
};
