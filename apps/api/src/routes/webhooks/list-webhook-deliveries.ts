import { DeliveryAttempt } from '@cg/events';
import { Type } from 'typebox';
import { Cursor, checkCursor, Limit, Page } from '../events/paging';
import type { ApiRoute } from '../route';
import { answers, ok, routeSchema } from '../schema';
import { callerEndpoint, IdParams } from './endpoint';

/** `GET /webhooks/{id}/deliveries`: the endpoint's delivery attempts, newest first. */
export const listWebhookDeliveries: ApiRoute = {
  name: 'webhooks-deliveries',
  method: 'GET',
  url: '/webhooks/:id/deliveries',
  access: 'read',
  paging: { cursor: ['data', 'nextCursor'], items: ['data', 'deliveries'] },
  schema: routeSchema('Delivery attempts of an endpoint, newest first', 'webhooks', {
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
      Page('deliveries', DeliveryAttempt, 'pass as cursor for older attempts; null at the end'),
    ),
  }),
  async handler(request, _reply, { context }) {
    const endpoint = await callerEndpoint(request, context);
    const query = request.query as { cursor?: string; status?: string; limit: number };
    checkCursor(query.cursor);
    const accounts = request.apiKey.accounts ?? undefined;
    const page = await context.events.deliveries.attempts(request.tenantId, endpoint.id, {
      ...query,
      accounts,
    });
    return ok(200, 'Success', { deliveries: page.attempts, nextCursor: page.nextCursor });
  },
};
