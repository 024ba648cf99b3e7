import type { GatewayConfig, Logger } from '@cg/config';
import { type Redis, storeKeys, UsageCounter } from '@cg/store';

/**
 * The process's usage counter, flushing about every second (`UsageCounter`), or undefined when
 * `USAGE_ENABLED` is off. A write that fails is logged and kept for the next one.
 */
export function startUsage(
  config: Pick<GatewayConfig, 'USAGE_ENABLED' | 'REDIS_PREFIX'>,
  redis: Redis,
  log: Logger,
): UsageCounter | undefined {
  if (!config.USAGE_ENABLED) return undefined;
  return new UsageCounter(redis, storeKeys(config.REDIS_PREFIX), (error) =>
    log.warn({ err: error }, 'usage not written; kept for the next write'),
  ).start();
}
