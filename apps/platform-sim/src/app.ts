import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from 'fastify';
import { API_PREFIX, registerApi } from './api/pipeline';
import { CONTROL_PREFIX, registerControl } from './control';
import { SimCore } from './core';
import { ControlError, ErrorCode } from './errors';
import { registerMediaHosts } from './media-host';
import { resolveOptions, type SimOptions } from './options';

const BODY_LIMIT_BYTES = 1_048_576;

function loggerOptions(options: SimOptions): Pick<FastifyServerOptions, 'logger'> {
  if (options.logLevel === 'silent') return { logger: false };
  return { logger: { level: options.logLevel } };
}

function statusOf(error: unknown): number {
  const status = (error as { statusCode?: unknown }).statusCode;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : 500;
}

/** The router's own refusals (a malformed percent-encoding): the platform's envelope under /api. */
function malformedUrl(_error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  if (request.url.startsWith(`${API_PREFIX}/`))
    reply.code(400).send({ success: false, error: { code: ErrorCode.validation, details: 'malformed URL' } });
  else reply.code(400).send({ error: 'malformed URL' });
}

/** The origin the sandbox answers at: a wildcard bind is reached over loopback. */
function ownOrigin(app: FastifyInstance, options: SimOptions): string {
  const address = app.server.address();
  if (address === null || typeof address === 'string') return '';
  const wildcard = address.address === '0.0.0.0' || address.address === '::';
  const host = wildcard ? '127.0.0.1' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `${options.tls ? 'https' : 'http'}://${host}:${address.port}`;
}

/**
 * Builds the sandbox (not listening). Callers: `await app.listen({ port: 0, host: '127.0.0.1' })`.
 * With `tls` it serves https, and `listen` answers an `https://` URL.
 */
export async function buildSim(partial: Partial<SimOptions> = {}): Promise<FastifyInstance> {
  const options = resolveOptions(partial);
  const core = new SimCore(options);
  const common = {
    bodyLimit: BODY_LIMIT_BYTES,
    // No per-request log lines: benchmarks drive thousands of requests per second.
    logController: new LogController({ disableRequestLogging: true }),
    exposeHeadRoutes: false,
    // Requests of the benchmarks come over keep-alive connections; close them promptly on shutdown.
    forceCloseConnections: true,
    frameworkErrors: malformedUrl,
  } satisfies FastifyServerOptions;
  const server = options.logger
    ? { ...common, loggerInstance: options.logger }
    : { ...common, ...loggerOptions(options) };
  // With a certificate it serves https on the same port (the real platform is https only). Its routes
  // do not depend on the transport, so the instance is typed as the http one either way.
  const app: FastifyInstance = options.tls
    ? (Fastify({
        ...server,
        https: { cert: options.tls.cert, key: options.tls.key },
      }) as unknown as FastifyInstance)
    : Fastify(server);

  // Empty JSON bodies are accepted (as no body) so a bodiless POST gets the platform's 400 code 10.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    try {
      done(null, JSON.parse(text));
    } catch {
      done(Object.assign(new Error('invalid JSON body'), { statusCode: 400 }), undefined);
    }
  });

  app.setErrorHandler((error, request, reply) => {
    if (error instanceof ControlError) return reply.code(error.status).send({ error: error.message });
    const status = statusOf(error);
    if (status >= 500) request.log.error({ err: error }, 'sandbox failure');
    if (request.url.startsWith(CONTROL_PREFIX)) {
      return reply.code(status).send({ error: status < 500 ? (error as Error).message : 'internal error' });
    }
    return reply.code(status).send({
      success: false,
      error:
        status < 500
          ? { code: ErrorCode.validation, details: 'invalid request body' }
          : { code: ErrorCode.serverFailure, details: 'Internal server error.' },
    });
  });

  app.setNotFoundHandler((request, reply) => {
    if (request.url.startsWith(`${API_PREFIX}/`)) {
      return reply
        .code(404)
        .send({ success: false, error: { code: ErrorCode.notFound, details: 'route not found' } });
    }
    return reply.code(404).send({ error: 'not found' });
  });

  registerApi(app, core);
  registerMediaHosts(app, core);
  registerControl(app, core);
  app.addHook('onListen', async () => core.listening(ownOrigin(app, options)));
  // The realtime websocket shares the port: upgrades of `/` become connections (realtime.ts).
  app.server.on('upgrade', (request, socket, head) => core.realtime.upgrade(request, socket, head));
  // Upgraded sockets are not HTTP connections Fastify closes: they, and the activity timers, go first.
  app.addHook('preClose', async () => core.close());
  core.streams.sync();
  app.log.debug({ creators: core.world.directory.count, seed: options.seed }, 'sandbox built');
  return app;
}
