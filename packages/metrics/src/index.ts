// Every metric family of the gateway (families.ts), the metrics of each kind of process, and the
// `/metrics` port of the processes that have no HTTP server of their own. Only this package imports
// prom-client; the platform client and the queue report through plain callbacks.
export { FAMILIES, type Family, type FamilyName } from './families';
export {
  ApiMetrics,
  type DeliveryOutcome,
  ListenerMetrics,
  type PlatformCallReport,
  type QueueSnapshot,
  UNMATCHED_ROUTE,
  WebhooksMetrics,
  WorkerMetrics,
} from './metrics';
export {
  type MetricsServer,
  type MetricsServerOptions,
  openMetricsPort,
  type Scrapable,
  scrapeAllowed,
  serveMetrics,
} from './server';
