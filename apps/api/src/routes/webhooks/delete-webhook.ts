import { Type } from 'typebox';
import type { ApiRoute } from '../route';
import { answers, ok, routeSchema } from '../schema';
import { callerEndpoint, endpointNotFound, IdParams } from './endpoint';

/** `DELETE /webhooks/{id}`: removes an endpoint and drops its pending deliveries. */
export const deleteWebhook: ApiRoute = {
  name: 'webhooks-delete',
  method: 'DELETE',
  url: '/webhooks/:id',
  access: 'admin',
  everyAccount: true,
  schema: routeSchema('Remove a webhook endpoint; its pending deliveries are dropped', 'webhooks', {
    params: IdParams,
    response: answers(200, Type.Object({ id: Type.String(), deleted: Type.Boolean() })),
  }),
  async handler(request, _reply, { context }) {
    const endpoint = await callerEndpoint(request, context);
    const pending = await context.events.webhooks.remove(request.tenantId, endpoint.id);
    if (pending === null) throw endpointNotFound(endpoint.id);
    await context.events.deliveries.drop(endpoint.id, pending);
    return ok(200, 'Webhook endpoint deleted', { id: endpoint.id, deleted: true });
  },
};
