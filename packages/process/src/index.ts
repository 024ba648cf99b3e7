// What every process of the gateway (API, worker, listener, webhook delivery) does the same way:
// its start-up from `.env` and the settings to the signals that close it (`runProcess`), its Redis,
// keyring and store (`connectStore`), its `/metrics` port and its grace period for closing.
export { finishesWithin } from './grace';
export { openProcessMetrics } from './metrics';
export { type GatewayProcess, runProcess } from './run';
export { connectStore, type StoreConnection } from './store';
export { startUsage } from './usage';
