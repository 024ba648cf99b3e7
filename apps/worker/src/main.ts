import { createLogger, loadGatewayConfig } from '@cg/config';
import { createGatewayWorker } from './index';

const config = loadGatewayConfig(process.env);
const logger = createLogger({ level: config.LOG_LEVEL, name: 'worker' });
const worker = await createGatewayWorker(config, logger);
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
