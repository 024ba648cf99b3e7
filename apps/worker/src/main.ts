import { createLogger, loadGatewayConfig, startupProblem } from '@cg/config';
import { createGatewayWorker } from './index';

async function start() {
  const config = loadGatewayConfig(process.env);
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'worker' });
  return { worker: await createGatewayWorker(config, logger), logger };
}

const { worker, logger } = await start().catch((error: unknown) => {
  const problem = startupProblem(error);
  if (problem === undefined) throw error;
  process.stderr.write(`worker: ${problem}\n`);
  process.exit(1);
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
