import { WebhookEndpoint } from '@cg/events';
import { Type } from 'typebox';
import type { ApiRoute } from '../route';
import { answers, ok, routeSchema } from '../schema';
import { callerEndpoint, IdParams } from './endpoint';

/** `GET /webhooks/{id}`: one endpoint with its delivery counters. */
export const getWebhook: ApiRoute = {
  name: 'webhooks-get',
  method: 'GET',
  url: '/webhooks/:id',
  access: 'read',
  schema: routeSchema('One webhook endpoint with its delivery counters', 'webhooks', {
    params: IdParams,
    response: answers(
      200,
      Type.Object({
        ...WebhookEndpoint.properties,
        deliveries: Type.Object({
          delivered: Type.Integer({ description: 'deliveries answered 2xx' }),
          failedAttempts: Type.Integer({ description: 'attempts that failed' }),
          givenUp: Type.Integer({ description: 'deliveries given up' }),
          pending: Type.Integer({ description: 'deliveries waiting or being retried' }),
        }),
      }),
    ),
  }),
  async handler(request, _reply, { context }) {
    const endpoint = await callerEndpoint(request, context);
    const counters = await context.events.webhooks.counters(request.tenantId, endpoint.id);
    return ok(200, 'Success', { ...endpoint, deliveries: counters });
  },
};
