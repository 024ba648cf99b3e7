import { createLogger, loadGatewayConfig, startOrExit } from '@cg/config';
import { createApi } from './index';

const { app, logger } = await startOrExit('api', async () => {
  const config = loadGatewayConfig(process.env);
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'api' });
  const app = await createApi(config, logger);
  await app.listen({ port: config.PORT, host: config.HOST });
  return { app, logger };
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    logger.info({ signal }, 'stopping');
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
