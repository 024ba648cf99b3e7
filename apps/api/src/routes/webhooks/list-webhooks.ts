import { WebhookEndpoint } from '@cg/events';
import { Type } from 'typebox';
import type { ApiRoute } from '../route';
import { answers, ok, routeSchema } from '../schema';
import { endpointVisible } from './endpoint';

/** `GET /webhooks`: the caller's tenant's endpoints. */
export const listWebhooks: ApiRoute = {
  name: 'webhooks-list',
  method: 'GET',
  url: '/webhooks',
  access: 'read',
  schema: routeSchema('The webhook endpoints of the caller’s tenant', 'webhooks', {
    response: answers(200, Type.Object({ webhooks: Type.Array(WebhookEndpoint) })),
  }),
  async handler(request, _reply, { context }) {
    const webhooks = await context.events.webhooks.list(request.tenantId);
    return ok(200, 'Success', {
      webhooks: webhooks.filter((endpoint) => endpointVisible(request, endpoint)),
    });
  },
};
