import { createLogger, loadDotEnv, loadGatewayConfig, startOrExit } from '@cg/config';
import { createGatewayWorker } from './index';

loadDotEnv();

const { worker, logger } = await startOrExit('worker', async () => {
  const config = loadGatewayConfig(process.env);
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'worker' });
  return { worker: await createGatewayWorker(config, logger), logger };
});
worker.start();
logger.info('worker started');

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    logger.info({ signal }, 'stopping: no new jobs, finishing in-flight ones');
    worker.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
