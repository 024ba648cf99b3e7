import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ErrorCode, errorBody, GatewayError } from '@cg/contract';

/** What a metrics endpoint serves: a process's metrics (metrics.ts). */
export interface Scrapable {
  readonly contentType: string;
  render(): Promise<string>;
}

/**
 * Whether a scrape may read the metrics: always when no token is set (`METRICS_TOKEN`), else only
 * with `Authorization: Bearer <token>`. Compared as digests, in constant time, so neither the
 * token's length nor its first differing byte can be timed.
 */
export function scrapeAllowed(authorization: string | undefined, token: string | undefined): boolean {
  if (token === undefined) return true;
  const match = /^Bearer +(\S+) *$/i.exec(authorization ?? '');
  if (!match) return false;
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(match[1] as string), digest(token));
}

export interface MetricsServer {
  /** The port it listens on (the one asked for, or the one given for 0 in tests). */
  readonly port: number;
  close(): Promise<void>;
}

export interface MetricsServerOptions {
  port: number;
  host: string;
  token?: string | undefined;
  /** A scrape that failed (the process's own error, never the scraper's). */
  onError?: (error: unknown) => void;
}

/**
 * `GET /metrics` on a port of its own, for the processes that serve no HTTP otherwise (worker,
 * listener, webhooks). Anything else is 404; a wrong or missing token 401, in the gateway's error
 * shape (without a request id: nothing on this port is logged per request).
 */
export async function serveMetrics(
  metrics: Scrapable,
  options: MetricsServerOptions,
): Promise<MetricsServer> {
  const server = createServer((request, response) => {
    answer(metrics, options, request, response).catch((error: unknown) => {
      options.onError?.(error);
      if (!response.headersSent) refuse(response, 'INTERNAL', 'the metrics could not be read');
      else response.destroy();
    });
  });
  // A scraper keeps its connection; nothing else should hold one open for long.
  server.requestTimeout = 10_000;
  server.headersTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

/**
 * The `METRICS_PORT` of a process: none when it is 0 or the process has no metrics
 * (`METRICS_ENABLED` false); a port that cannot be had fails the process's start.
 */
export async function openMetricsPort(
  metrics: Scrapable | undefined,
  options: MetricsServerOptions,
): Promise<MetricsServer | undefined> {
  return metrics === undefined || options.port === 0 ? undefined : serveMetrics(metrics, options);
}

async function answer(
  metrics: Scrapable,
  options: MetricsServerOptions,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const path = (request.url ?? '').split('?')[0];
  if (path !== '/metrics') return refuse(response, 'NOT_FOUND', `no route ${request.method} ${path}`);
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.setHeader('allow', 'GET, HEAD');
    return refuse(response, 'METHOD_NOT_ALLOWED', `/metrics does not take ${request.method}: use GET`);
  }
  if (!scrapeAllowed(request.headers.authorization, options.token)) {
    response.setHeader('www-authenticate', 'Bearer');
    return refuse(response, 'UNAUTHORIZED', 'send the metrics token as Authorization: Bearer <token>');
  }
  const text = await metrics.render();
  response.writeHead(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' });
  response.end(request.method === 'HEAD' ? undefined : text);
}

function refuse(response: ServerResponse, code: ErrorCode, message: string): void {
  const error = new GatewayError(code, message);
  response.writeHead(error.statusCode, { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(errorBody(error)));
}
