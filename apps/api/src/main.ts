import { createLogger, loadGatewayConfig } from '@cg/config';
import { createApi } from './index';

const config = loadGatewayConfig(process.env);
const logger = createLogger({ level: config.LOG_LEVEL, name: 'api' });
const app = await createApi(config, logger);
await app.listen({ port: config.PORT, host: config.HOST });

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    logger.info({ signal }, 'stopping');
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
