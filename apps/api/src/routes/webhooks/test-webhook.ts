import { GatewayError } from '@cg/contract';
import { eventId, TEST_EVENT } from '@cg/events';
import type { ApiRoute } from '../route';
import { answers, ok, routeSchema } from '../schema';
import { callerEndpoint, IdParams, Queued } from './endpoint';

/** `POST /webhooks/{id}/test`: a test event delivered to the endpoint now, whatever its filters. */
export const testWebhook: ApiRoute = {
  name: 'webhooks-test',
  method: 'POST',
  url: '/webhooks/:id/test',
  access: 'admin',
  everyAccount: true,
  schema: routeSchema(`Deliver a \`${TEST_EVENT}\` event to the endpoint now`, 'webhooks', {
    params: IdParams,
    response: answers(200, Queued),
  }),
  async handler(request, _reply, { context }) {
    const endpoint = await callerEndpoint(request, context);
    if (!endpoint.enabled) throw new GatewayError('CONFLICT', `webhook endpoint ${endpoint.id} is disabled`);
    const event = {
      id: eventId([TEST_EVENT, endpoint.id, Date.now(), Math.random()]),
      event: TEST_EVENT,
      accountId: null,
      timestamp: new Date().toISOString(),
      data: { endpointId: endpoint.id, message: 'a test event from creator-gateway' },
    };
    const [deliveryId] = await context.events.deliveries.enqueue(request.tenantId, [endpoint.id], event, {
      manual: true,
      requestId: request.id,
    });
    return ok(200, 'Test event queued', { deliveryId, eventId: event.id });
  },
};
