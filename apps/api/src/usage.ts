import type { UsageCounterName } from '@cg/store';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiContext } from './context';
import { requestAccount } from './scope';

/** The counter of an answer's status: below 400 (2xx, the rare 3xx), 4xx or 5xx. */
function statusClass(status: number): UsageCounterName {
  if (status >= 500) return 'requests5xx';
  return status >= 400 ? 'requests4xx' : 'requests2xx';
}

/**
 * Counts every answered request of a known API key (a 401 has none) under its key and its account
 * (`request.accountId`, else the path's `accountId`), by its status' class, 429s again on their own:
 * in this process's memory, written about once a second (packages/store `UsageCounter`), so a request
 * pays no Redis round trip for it. Nothing is installed when `USAGE_ENABLED` is false.
 */
export function installUsage(app: FastifyInstance, context: ApiContext): void {
  const { usage } = context;
  if (usage === undefined) return;
  // A callback hook, not an async one: no promise per request for a few map updates.
  app.addHook('onResponse', (request, reply, done) => {
    const key = request.apiKey;
    if (key) {
      const status = reply.statusCode;
      const accountId = requestAccount(request, status);
      usage.add(key.tenantId, key.keyId, accountId, statusClass(status));
      if (status === 429) usage.add(key.tenantId, key.keyId, accountId, 'requests429');
    }
    done();
  });
}

/** Counts `bytes` of a media file under the request's key and account (`mediaBytesUp` / `Down`). */
export function countMedia(
  context: ApiContext,
  request: FastifyRequest,
  counter: 'mediaBytesUp' | 'mediaBytesDown',
  bytes: number,
): void {
  const key = request.apiKey;
  if (key) context.usage?.add(key.tenantId, key.keyId, request.accountId, counter, bytes);
}
