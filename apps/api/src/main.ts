import { createLogger, loadDotEnv, loadGatewayConfig, startOrExit } from '@cg/config';
import { createApi } from './index';

loadDotEnv();

const { app, logger, config } = await startOrExit('api', async () => {
  const config = loadGatewayConfig(process.env);
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'api', pretty: config.LOG_PRETTY });
  const app = await createApi(config, logger);
  await app.listen({ port: config.PORT, host: config.HOST });
  return { app, logger, config };
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    logger.info({ signal }, 'stopping');
    // Waits end at the grace (202); a connection still open a few seconds after that is not waited for.
    setTimeout(
      () => {
        logger.warn('connections still open after the shutdown grace; exiting');
        process.exit(1);
      },
      config.READY_DRAIN_MS + config.SHUTDOWN_GRACE_MS + 5_000,
    ).unref();
    // First READY_DRAIN_MS of serving with /readyz at 503, for load balancers to stop sending here.
    app.drain();
    setTimeout(() => {
      app.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    }, config.READY_DRAIN_MS);
  });
}
