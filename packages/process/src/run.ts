import {
  createLogger,
  type GatewayConfig,
  type Logger,
  loadDotEnv,
  loadGatewayConfig,
  startOrExit,
} from '@cg/config';

/** A long-running process of the gateway (API, worker, listener, webhook delivery): started once, closed on a signal. */
export interface GatewayProcess {
  start(): void;
  close(): Promise<void>;
}

/**
 * The entry point of a gateway process: reads `.env` and the configuration (a bad setting exits 1 with
 * one line), builds the process with `create`, starts it and logs `<name> started`; SIGTERM or SIGINT
 * logs `stopping` and closes it, exiting 0 (1 when closing fails).
 */
export async function runProcess(
  name: string,
  create: (config: GatewayConfig, logger: Logger) => Promise<GatewayProcess>,
  stopping: string,
): Promise<void> {
  loadDotEnv();
  const { running, logger } = await startOrExit(name, async () => {
    const config = loadGatewayConfig(process.env);
    const logger = createLogger({ level: config.LOG_LEVEL, name, pretty: config.LOG_PRETTY });
    return { running: await create(config, logger), logger };
  });
  running.start();
  logger.info(`${name} started`);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.info({ signal }, stopping);
      running.close().then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
}
