export { ConfigError, Int, parseEnv } from './env';
export { type GatewayConfig, GatewayEnv, loadGatewayConfig } from './gateway';
export { createLogger, type Logger, REDACT_PATHS } from './logger';
