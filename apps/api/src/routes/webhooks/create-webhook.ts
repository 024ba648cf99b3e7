import { WebhookEndpoint } from '@cg/events';
import { Type } from 'typebox';
import type { ApiRoute } from '../route';
import { answers, ok, routeSchema } from '../schema';
import { checkEndpoint, type EndpointBody, EndpointFields } from './endpoint';

/** `POST /webhooks`: a new endpoint of the caller's tenant, with its signing secret. */
export const createWebhook: ApiRoute = {
  name: 'webhooks-create',
  method: 'POST',
  url: '/webhooks',
  access: 'admin',
  everyAccount: true,
  schema: routeSchema('Create a webhook endpoint; its signing secret is shown only here', 'webhooks', {
    body: Type.Object({
      url: EndpointFields.url,
      events: Type.Optional(EndpointFields.events),
      accountIds: Type.Optional(EndpointFields.accountIds),
      description: Type.Optional(EndpointFields.description),
    }),
    response: answers(
      201,
      Type.Object({
        ...WebhookEndpoint.properties,
        secret: Type.String({ description: '`whsec_` + base64: shown only here' }),
      }),
    ),
  }),
  async handler(request, reply, { context }) {
    const input = request.body as EndpointBody & { url: string };
    await checkEndpoint(request.tenantId, input, context);
    const { endpoint, secret } = await context.events.webhooks.create(request.tenantId, input);
    return reply.status(201).send(ok(201, 'Webhook endpoint created', { ...endpoint, secret }));
  },
};
