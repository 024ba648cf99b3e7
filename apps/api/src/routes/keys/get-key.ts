import type { ApiRoute } from '../route';
import { answers, ok, routeSchema } from '../schema';
import { ApiKeyRecord, callerKey, KeyParams, keyRecord } from './key';

/** `GET /keys/{keyId}`: one key's scope and limit. */
export const getKey: ApiRoute = {
  name: 'keys-get',
  method: 'GET',
  url: '/keys/:keyId',
  access: 'admin',
  schema: routeSchema('One API key’s label, scope and limit', 'keys', {
    params: KeyParams,
    response: answers(200, ApiKeyRecord),
  }),
  example: { params: { keyId: 'key_4Qm8ZtP2xLr6Ks0Wd1Vn3a' } },
  async handler(request, _reply, { context }) {
    return ok(200, 'Success', keyRecord(await callerKey(request, context)));
  },
};
