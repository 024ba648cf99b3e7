import { type GatewayConfig, type Logger, listenOn } from '@cg/config';
import { type MetricsServer, openMetricsPort, type Scrapable } from '@cg/metrics';

/**
 * The `/metrics` port of a process without an HTTP server of its own (`METRICS_PORT`; none when it
 * is 0 or `metrics` is undefined). A port another process holds is the setting's fault
 * (`listenOn`: `METRICS_PORT 9464 is in use`); a failed scrape is logged to `log`.
 */
export function openProcessMetrics(
  metrics: Scrapable | undefined,
  config: Pick<GatewayConfig, 'METRICS_PORT' | 'HOST' | 'METRICS_TOKEN'>,
  log: Logger,
): Promise<MetricsServer | undefined> {
  return listenOn('METRICS_PORT', config.METRICS_PORT, () =>
    openMetricsPort(metrics, {
      port: config.METRICS_PORT,
      host: config.HOST,
      token: config.METRICS_TOKEN,
      onError: (error) => log.error({ err: error }, 'metrics scrape failed'),
    }),
  );
}
