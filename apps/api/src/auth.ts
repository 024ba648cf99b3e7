import { errorBody, GatewayError } from '@cg/contract';
import { type ApiKeyInfo, sha256 } from '@cg/store';
import type { FastifyInstance } from 'fastify';
import type { ApiContext } from './context';
import { TtlCache } from './ttl-cache';

/**
 * Every route below `/api/{platform}` needs `x-api-key`. The key's tenant becomes `request.tenantId`;
 * a missing or unknown key is 401 before anything else is looked at.
 */
export function installApiKeyAuth(app: FastifyInstance, { store, config }: ApiContext): void {
  const resolve = cachedResolver((key) => store.apiKeys.resolve(key), config.API_KEY_CACHE_MS);
  app.decorateRequest('tenantId', '');
  app.addHook('onRequest', async (request, reply) => {
    const key = request.headers['x-api-key'];
    const info = typeof key === 'string' && key.length > 0 && key.length < 200 ? await resolve(key) : null;
    if (!info) {
      const message = key === undefined ? 'the x-api-key header is missing' : 'the API key is not valid';
      return reply.status(401).send(errorBody(new GatewayError('UNAUTHORIZED', message), request.id));
    }
    request.tenantId = info.tenantId;
    return undefined;
  });
}

/**
 * Valid keys are remembered for `ttlMs`; unknown keys are not, so a new key works at once and a wrong
 * one costs a lookup each time. The cache is keyed by the key's hash, never the key.
 */
function cachedResolver(
  lookup: (key: string) => Promise<ApiKeyInfo | null>,
  ttlMs: number,
): (key: string) => Promise<ApiKeyInfo | null> {
  const cache = new TtlCache<ApiKeyInfo>(ttlMs);
  return async (key) => {
    const id = sha256(key);
    const hit = cache.get(id);
    if (hit) return hit;
    const info = await lookup(key);
    if (info) cache.set(id, info);
    return info;
  };
}
