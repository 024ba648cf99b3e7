import { createLogger, loadGatewayConfig, startupProblem } from '@cg/config';
import { createApi } from './index';

async function start() {
  const config = loadGatewayConfig(process.env);
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'api' });
  const app = await createApi(config, logger);
  await app.listen({ port: config.PORT, host: config.HOST });
  return { app, logger };
}

const { app, logger } = await start().catch((error: unknown) => {
  const problem = startupProblem(error);
  if (problem === undefined) throw error;
  process.stderr.write(`api: ${problem}\n`);
  process.exit(1);
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
