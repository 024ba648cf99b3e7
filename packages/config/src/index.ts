export { DOTENV_FILE, loadDotEnv } from './dotenv';
export { type EgressPlan, type EgressProxy, loadEgressPlan } from './egress';
export { ConfigError, Int, listenOn, parseEnv, startOrExit } from './env';
export {
  type GatewayConfig,
  GatewayEnv,
  laneSettings,
  loadGatewayConfig,
  queueSettings,
  webhookSettings,
} from './gateway';
export { createLogger, type Logger, REDACT_PATHS } from './logger';
