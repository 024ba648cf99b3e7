import { errorBody, GatewayError } from '@cg/contract';
import type { FastifyInstance } from 'fastify';
import type { ApiContext } from './context';

/**
 * Every route below `/api/{platform}` needs `x-api-key`. The key's tenant becomes `request.tenantId`;
 * a missing or unknown key is 401 before anything else is looked at.
 */
export function installApiKeyAuth(app: FastifyInstance, { store }: ApiContext): void {
  app.decorateRequest('tenantId', '');
  app.addHook('onRequest', async (request, reply) => {
    const key = request.headers['x-api-key'];
    const info =
      typeof key === 'string' && key.length > 0 && key.length < 200 ? await store.apiKeys.resolve(key) : null;
    if (!info) {
      const message = key === undefined ? 'the x-api-key header is missing' : 'the API key is not valid';
      return reply.status(401).send(errorBody(new GatewayError('UNAUTHORIZED', message), request.id));
    }
    request.tenantId = info.tenantId;
    return undefined;
  });
}
