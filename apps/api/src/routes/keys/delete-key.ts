import { Type } from 'typebox';
import type { ApiRoute } from '../route';
import { answers, ok, routeSchema } from '../schema';
import { callerKey, KeyParams, keyNotFound, refusedChange } from './key';

/** `DELETE /keys/{keyId}`: revokes a key, on every API process within 1 s. */
export const deleteKey: ApiRoute = {
  name: 'keys-delete',
  method: 'DELETE',
  url: '/keys/:keyId',
  access: 'admin',
  schema: routeSchema('Revoke an API key (in effect within 1 s)', 'keys', {
    params: KeyParams,
    response: answers(200, Type.Object({ keyId: Type.String(), deleted: Type.Boolean() })),
  }),
  example: { params: { keyId: 'key_4Qm8ZtP2xLr6Ks0Wd1Vn3a' } },
  async handler(request, _reply, { context }) {
    const target = await callerKey(request, context);
    const removed = await context.store.apiKeys.remove(request.tenantId, target.keyId);
    if (typeof removed === 'string') throw refusedChange(removed, target.keyId);
    // Revoked meanwhile by another request.
    if (!removed) throw keyNotFound(target.keyId);
    return ok(200, 'API key revoked', { keyId: target.keyId, deleted: true });
  },
};
