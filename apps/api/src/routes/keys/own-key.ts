import type { ApiRoute } from '../route';
import { answers, ok, routeSchema } from '../schema';
import { ApiKeyRecord, keyRecord } from './key';

/** `GET /keys/self`: the calling key's own label, scope and limit (what a console offers follows it). */
export const ownKey: ApiRoute = {
  name: 'keys-self',
  method: 'GET',
  url: '/keys/self',
  access: 'read',
  schema: routeSchema('The calling API key’s own label, scope and limit', 'keys', {
    response: answers(200, ApiKeyRecord),
  }),
  async handler(request) {
    return ok(200, 'Success', keyRecord(request.apiKey));
  },
};
