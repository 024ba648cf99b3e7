import { timingSafeEqual } from 'node:crypto';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import { GatewayError } from '@cg/contract';
import { ListenJobs } from '@cg/queue';
import type { FastifyInstance } from 'fastify';
import type { ApiContext } from './context';
import { sendError } from './errors';

export const BOARD_PATH = '/admin/queues';

/**
 * Bull Board behind HTTP Basic auth with the admin credential from config, showing every queue the
 * gateway runs: operations, webhook deliveries, realtime connections. Read-only: retrying a failed
 * write from a dashboard could send it to the platform twice. Jobs hold no secret in clear (sealed
 * input and results; a delivery job holds ids only), so nothing secret can show here.
 */
export async function registerBoard(app: FastifyInstance, context: ApiContext): Promise<void> {
  const { config, queue, events, redis } = context;
  const password = config.ADMIN_PASSWORD;
  if (password === undefined) return;
  const expected = Buffer.from(`Basic ${Buffer.from(`${config.ADMIN_USER}:${password}`).toString('base64')}`);
  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(BOARD_PATH);
  const listen = new ListenJobs(redis, config.REDIS_PREFIX);
  app.addHook('onClose', () => listen.close());
  createBullBoard({
    queues: [queue.queue, events.deliveries.queue, listen.queue].map(
      (shown) => new BullMQAdapter(shown, { readOnlyMode: true }),
    ),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'creator-gateway' } },
  });
  await app.register(async (scope) => {
    scope.addHook('onRequest', async (request, reply) => {
      const given = Buffer.from(request.headers.authorization ?? '');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        reply.header('www-authenticate', 'Basic realm="queues"');
        return sendError(reply, request, new GatewayError('UNAUTHORIZED', 'admin credential required'));
      }
      return undefined;
    });
    await scope.register(serverAdapter.registerPlugin(), { prefix: BOARD_PATH });
  });
}
