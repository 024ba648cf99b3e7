import { Type } from 'typebox';
import type { ApiRoute } from '../route';
import { answers, ok, routeSchema } from '../schema';
import { ApiKeyRecord, keyRecord, visibleTo } from './key';

/** `GET /keys`: the tenant's keys the caller sees, oldest first (never the keys themselves). */
export const listKeys: ApiRoute = {
  name: 'keys-list',
  method: 'GET',
  url: '/keys',
  access: 'admin',
  schema: routeSchema('The tenant’s API keys (their ids and scopes, never the keys)', 'keys', {
    response: answers(200, Type.Object({ keys: Type.Array(ApiKeyRecord) })),
  }),
  async handler(request, _reply, { context }) {
    const keys = await context.store.apiKeys.ofTenant(request.tenantId);
    return ok(200, 'Success', { keys: keys.filter((info) => visibleTo(request, info)).map(keyRecord) });
  },
};
