import { GatewayError } from '@cg/contract';
import { EVENT_NAMES, GatewayEvent, isEventName } from '@cg/events';
import { Type } from 'typebox';
import type { ApiRoute } from '../route';
import { answers, ok, routeSchema } from '../schema';
import { Cursor, checkCursor, Limit, Page } from './paging';

/** `GET /events`: the tenant's event log (our own store only), oldest first from the cursor. */
export const listEvents: ApiRoute = {
  name: 'events-list',
  method: 'GET',
  url: '/events',
  access: 'read',
  paging: { cursor: ['data', 'nextCursor'], items: ['data', 'events'] },
  schema: routeSchema('The tenant’s events, oldest first from the cursor', 'events', {
    querystring: Type.Object({
      cursor: Cursor,
      event: Type.Optional(Type.String({ maxLength: 100, description: 'only this event name' })),
      accountId: Type.Optional(Type.String({ maxLength: 100, description: 'only this account’s' })),
      limit: Limit,
    }),
    response: answers(200, Page('events', GatewayEvent, 'pass as cursor for the next page; null at the end')),
  }),
  async handler(request, _reply, { context }) {
    const query = request.query as { cursor?: string; event?: string; accountId?: string; limit: number };
    checkCursor(query.cursor);
    if (query.event !== undefined && !isEventName(query.event))
      throw new GatewayError(
        'BAD_REQUEST',
        `unknown event ${query.event}; known events: ${EVENT_NAMES.join(', ')}`,
      );
    const accounts = request.apiKey.accounts ?? undefined;
    return ok(200, 'Success', await context.events.log.page(request.tenantId, { ...query, accounts }));
  },
};
