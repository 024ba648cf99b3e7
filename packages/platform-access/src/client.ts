import type { GatewayConfig } from '@cg/config';
import { type CallReport, PlatformClient } from '@cg/platform-client';

export type PlatformSettings = Pick<
  GatewayConfig,
  | 'PLATFORM_URL'
  | 'PLATFORM_MEDIA_URL'
  | 'PLATFORM_TIMEOUT_MS'
  | 'PLATFORM_CONNECTIONS'
  | 'PLATFORM_CHECK_KEY'
>;

/** The platform client of a process's settings; `metrics` is told of every call it sends. */
export function platformClient(
  config: PlatformSettings,
  metrics?: { platformCall(call: CallReport): void },
): PlatformClient {
  return new PlatformClient({
    baseUrl: config.PLATFORM_URL,
    ...(config.PLATFORM_MEDIA_URL === undefined ? {} : { mediaBaseUrl: config.PLATFORM_MEDIA_URL }),
    timeoutMs: config.PLATFORM_TIMEOUT_MS,
    connections: config.PLATFORM_CONNECTIONS,
    ...(config.PLATFORM_CHECK_KEY === undefined ? {} : { checkKey: config.PLATFORM_CHECK_KEY }),
    ...(metrics === undefined ? {} : { onCall: (call) => metrics.platformCall(call) }),
  });
}
