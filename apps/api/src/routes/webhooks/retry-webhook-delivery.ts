import { GatewayError } from '@cg/contract';
import { Type } from 'typebox';
import type { ApiRoute } from '../route';
import { answers, ok, routeSchema } from '../schema';
import { callerEndpoint, Queued } from './endpoint';

/** `POST /webhooks/{id}/deliveries/{deliveryId}/retry`: that delivery's event delivered again now. */
export const retryWebhookDelivery: ApiRoute = {
  name: 'webhooks-delivery-retry',
  method: 'POST',
  url: '/webhooks/:id/deliveries/:deliveryId/retry',
  access: 'admin',
  everyAccount: true,
  schema: routeSchema('Deliver that delivery’s event again now', 'webhooks', {
    params: Type.Object({
      id: Type.String({ maxLength: 100 }),
      deliveryId: Type.String({ maxLength: 100 }),
    }),
    response: answers(200, Queued),
  }),
  async handler(request, _reply, { context }) {
    const endpoint = await callerEndpoint(request, context);
    const { deliveryId } = request.params as { deliveryId: string };
    const event = await context.events.deliveries.retry(
      request.tenantId,
      endpoint.id,
      deliveryId,
      request.id,
    );
    if (!event)
      throw new GatewayError(
        'NOT_FOUND',
        `delivery ${deliveryId} not found (deliveries are kept for a limited time)`,
      );
    return ok(200, 'Delivery queued', { deliveryId, eventId: event.id });
  },
};
