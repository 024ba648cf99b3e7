import { createLogger, loadGatewayConfig } from '@cg/config';
import type { Events } from '@cg/events';
import { exampleClock, PINNED_EXAMPLE_CLOCK_MS } from '@cg/operations';
import type { ProxyHealth } from '@cg/platform-access';
import type { OperationsQueue } from '@cg/queue';
import { parseKeyring } from '@cg/secrets';
import { connectRedis, createStore } from '@cg/store';
import { buildApi } from './server';

/** The API's OpenAPI document and route table, as a process with the default settings serves them. */
export interface ApiDocument {
  /** What `GET /openapi.json` answers. */
  doc: unknown;
  /** Fastify's `printRoutes({ commonPrefix: false })`: every route, as a tree. */
  routeTree: string;
  /** The platform slug of the API prefix (`/api/{slug}`). */
  slug: string;
}

/**
 * Builds the API in-process (`buildApi`: every route, the OpenAPI plugin) with the default settings
 * and reads its document, for the generators (`pnpm run docs`, the SDK's types). Nothing listens and
 * no Redis is needed: the routes keep the store and the queue only for their requests, so the store
 * gets a closed client and the queue and events are never built (touching them throws). Examples'
 * times are read at `PINNED_EXAMPLE_CLOCK_MS`, so the document is the same whenever it is built.
 */
export async function loadApiDocument(): Promise<ApiDocument> {
  const config = loadGatewayConfig({ ENCRYPTION_KEY: Buffer.alloc(32).toString('base64') });
  // A client that never connects: created lazily and closed at once, every command fails at once.
  const redis = connectRedis(config.REDIS_URL, { lazyConnect: true, enableOfflineQueue: false });
  redis.on('error', () => {});
  redis.disconnect();
  if (redis.status !== 'end') throw new Error(`the document's Redis client is ${redis.status}, not closed`);
  const keyring = parseKeyring(config.ENCRYPTION_KEY);
  const app = await buildApi({
    config,
    redis,
    store: createStore(redis, 'document', keyring),
    queue: absent<OperationsQueue>('queue'),
    events: absent<Events>('events'),
    keyring,
    logger: createLogger({ level: 'silent', name: 'document' }),
    egress: null,
    proxies: absent<ProxyHealth>('proxies'),
  });
  const clock = exampleClock.now;
  exampleClock.now = () => PINNED_EXAMPLE_CLOCK_MS;
  try {
    await app.ready();
    return {
      doc: structuredClone(app.swagger()),
      routeTree: app.printRoutes({ commonPrefix: false }),
      slug: config.PLATFORM_SLUG,
    };
  } finally {
    exampleClock.now = clock;
    await app.close();
  }
}

/** A stand-in for a part the document does not need: any use of it is a bug, and says which. */
function absent<T extends object>(name: string): T {
  return new Proxy({} as T, {
    get: (_target, key) => {
      throw new Error(`the API document is built without ${name} (${name}.${String(key)} was used)`);
    },
  });
}
