import { setTimeout as sleep } from 'node:timers/promises';
import { type GatewayConfig, type Logger, listenOn } from '@cg/config';
import { type GatewayProcess, runProcess } from '@cg/process';
import type { FastifyInstance } from 'fastify';
import { createApi } from './index';

/** The API listening on `HOST`:`PORT`. */
async function serveApi(config: GatewayConfig, logger: Logger): Promise<GatewayProcess> {
  const app = await createApi(config, logger);
  await listenOn('PORT', config.PORT, () => app.listen({ port: config.PORT, host: config.HOST }));
  return { start: () => undefined, close: () => drainAndClose(app, config, logger) };
}

/**
 * Serves READY_DRAIN_MS more with `/readyz` at 503, for load balancers to stop sending here, then
 * closes: waits end at the grace (202); a connection still open a few seconds after that is not
 * waited for.
 */
async function drainAndClose(app: FastifyInstance, config: GatewayConfig, logger: Logger): Promise<void> {
  setTimeout(
    () => {
      logger.warn('connections still open after the shutdown grace; exiting');
      process.exit(1);
    },
    config.READY_DRAIN_MS + config.SHUTDOWN_GRACE_MS + 5_000,
  ).unref();
  app.drain();
  await sleep(config.READY_DRAIN_MS);
  await app.close();
}

await runProcess('api', serveApi, 'stopping');
