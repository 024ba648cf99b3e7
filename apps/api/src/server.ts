import { ErrorBodySchema, GatewayError } from '@cg/contract';
import { addTextFormats, TEXT_RULE } from '@cg/operations';
import { redisPulse } from '@cg/store';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { installAudit } from './audit';
import { installApiKeyAuth } from './auth';
import { BOARD_PATH, registerBoard } from './board';
import {
  arrivalTimeouts,
  closeEarlyAnswers,
  installBodyIdleTimeout,
  refuseConnect,
  trustedProxies,
} from './connections';
import { registerConsole } from './console';
import type { ApiContext } from './context';
import {
  clientError,
  frameworkError,
  installErrorHandling,
  MAX_PARAM_LENGTH,
  notFound,
  RouteMethods,
  sendError,
} from './errors';
import { Lifecycle, registerHealth } from './health';
import { registerMetrics } from './metrics';
import { documentAsyncAnswers, type OpenApiDocument } from './openapi';
import { registerOperationRoutes } from './operation-routes';
import { echoRequestId, requestIdOf } from './request-id';
import { registerApiRoutes } from './routes';
import type { ConnectedAccounts } from './submit';
import { TtlCache } from './ttl-cache';
import { installUsage } from './usage';
import { decimalNumbersFirst, jsonBodyProblem, jsonBytesProblem, queryProblem } from './validation';

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/**
 * Query strings and path parameters arrive as text and are converted to the schema's types; JSON
 * bodies are taken as sent, so `"type": "1"` is rejected rather than guessed at. Both know the
 * standard formats and the text fields' (`addTextFormats`).
 */
function validators() {
  const make = (coerceTypes: boolean | 'array') => {
    const ajv = addFormats(
      new Ajv({
        coerceTypes,
        useDefaults: true,
        removeAdditional: true,
        allErrors: false,
        strict: false,
        verbose: true,
        // String lengths in UTF-16 code units, as the platform counts them: a name of 60 emoji is
        // 120 long there, and refused here before it is queued. (Ajv 8 calls the option deprecated
        // and says so on stderr at every start; with strict mode off it has nothing else to log.)
        unicode: false,
        logger: false,
      }),
    );
    return addTextFormats(ajv);
  };
  return { body: make(false), other: make('array') };
}

const MAX_HEADER_BYTES = 32 * 1024;
const SERVED_WITHOUT_REDIS = /^\/(healthz|readyz|metrics|openapi\.json|docs|console)(\/|\?|$)/;
/** `/readyz` answers for itself while the process stops: 503, saying so. */
const SERVED_WHILE_CLOSING = /^\/readyz(\?|$)/;
const REDIS_DOWN_RETRY_AFTER_S = 5;

export async function buildApi(context: ApiContext): Promise<FastifyInstance> {
  const app = createServer(context);
  installBodyIdleTimeout(app, context.config.BODY_IDLE_TIMEOUT_MS);
  closeEarlyAnswers(app);
  echoRequestId(app);
  const methods = new RouteMethods((url) => url.startsWith(BOARD_PATH));
  app.addHook('onRoute', (route) => methods.add(route.method, route.url, route.config));
  installErrorHandling(app, methods);
  installJsonBodies(app);
  app.addSchema(ErrorBodySchema);
  registerMetrics(app, context.metrics);
  await registerDocs(app, context);
  const lifecycle = new Lifecycle();
  lifecycle.install(app);
  registerHealth(app, context, lifecycle);
  installRefusals(app, context, lifecycle);
  refuseConnect(app, methods);
  await registerBoard(app, context);
  await registerConsole(app, { platform: context.config.PLATFORM_SLUG });

  const connected: ConnectedAccounts = new TtlCache(context.config.ACCOUNT_CACHE_MS);
  await app.register(
    async (api) => {
      installApiKeyAuth(api, context);
      // What each answered request counts, and what each write leaves in the audit log.
      api.decorateRequest('accountId', null);
      api.decorateRequest('jobId', null);
      installUsage(api, context);
      installAudit(api, context);
      // Under the API's prefix, a path that is no route asks for the key first (401), like every
      // route: without one, nobody learns which routes exist.
      api.setNotFoundHandler(notFound(methods));
      registerOperationRoutes(api, context, connected);
      await registerApiRoutes(api, context, connected);
    },
    { prefix: `/api/${context.config.PLATFORM_SLUG}` },
  );
  return app;
}

/** Fastify with the gateway's limits, request ids, validators and plain JSON serialisation. */
function createServer(context: ApiContext): FastifyInstance {
  const timeouts = arrivalTimeouts(context.config);
  const app = Fastify({
    loggerInstance: context.logger.child({ module: 'api' }) as FastifyBaseLogger,
    // One line per request only when debugging: at thousands of requests a second it is noise.
    // The request id is in every log line of the request as `requestId`, as in the job's lines.
    logController: new LogController({
      disableRequestLogging: context.config.LOG_LEVEL !== 'debug',
      requestIdLogLabel: 'requestId',
    }),
    // The caller's X-Request-Id when well-formed (request-id.ts).
    genReqId: requestIdOf,
    bodyLimit: 1_048_576,
    // Node's default 16 KiB of request line and headers cannot hold the 1,000 ids `/accounts/by-ids`
    // takes in its query (19 digits each: about 20 KB).
    http: { maxHeaderSize: MAX_HEADER_BYTES, ...timeouts.http },
    // How long a request (headers, body) may take to arrive: apps/api/src/connections.ts.
    requestTimeout: timeouts.requestTimeout,
    // Which load balancers' X-Forwarded-* headers are believed (TRUST_PROXY): connections.ts.
    trustProxy: trustedProxies(context.config) ?? false,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: frameworkError,
    clientErrorHandler: clientError,
    // Requests arriving while the process stops are refused below, in the gateway's error shape.
    return503OnClosing: false,
  });
  const ajv = validators();
  // Coerced text can become Infinity (`?after=1e400`): every query and path number has a maximum
  // (`assertRegistry`), which refuses it.
  app.setValidatorCompiler(({ schema, httpPart }) => {
    if (httpPart === 'body') return ajv.body.compile(schema);
    const validate = ajv.other.compile(schema);
    return httpPart === 'querystring' ? decimalNumbersFirst(schema, validate) : validate;
  });
  // Response schemas document the contract (OpenAPI) and are checked by the tests; they do not
  // reshape answers, which a serializer would do silently on a mismatch.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  return app;
}

/**
 * Every body is JSON, read as UTF-8. Many clients send `content-type: application/json` on every
 * request, DELETE without a body included: an empty body is no body, not malformed JSON. Fastify's
 * own parser stays in charge of everything else (prototype-poisoning checks included).
 */
function installJsonBodies(app: FastifyInstance): void {
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, bytes, done) => {
    const body = (bytes as Buffer).toString('utf8');
    if (body.trim() === '') return done(null, undefined);
    const unreadable = jsonBytesProblem(request.headers, bytes as Buffer);
    if (unreadable !== undefined) return done(new GatewayError('BAD_REQUEST', unreadable));
    return json(request, body, (error, parsed) => {
      if (error) return done(poisoned(body) ? new GatewayError('BAD_REQUEST', POISONED) : error);
      const problem = jsonBodyProblem(parsed);
      return problem === undefined ? done(null, parsed) : done(new GatewayError('BAD_REQUEST', problem));
    });
  });
  // A text/plain body is refused as such, not parsed into a string the schema then calls "must be
  // object".
  app.removeContentTypeParser('text/plain');
}

/** The OpenAPI document (`/openapi.json`) and its viewer (`/docs`). */
async function registerDocs(app: FastifyInstance, context: ApiContext): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'creator-gateway',
        version: '1.0.0',
        description: `Creator account gateway for the ${context.config.PLATFORM_SLUG} platform (docs/api.md). ${TEXT_RULE}`,
      },
      components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } },
    },
    transformObject: (document) =>
      // Only an OpenAPI document is generated here (`openapi` above), never a Swagger 2 one.
      documentAsyncAnswers(('openapiObject' in document ? document.openapiObject : {}) as OpenApiDocument),
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

/**
 * Requests are refused at once, in the error shape, while the process stops (SIGTERM: nothing new
 * is taken) and while Redis is away (its commands would wait for it, so the request would hang
 * until then; `/healthz` and the docs still answer); and a query string that is not UTF-8 is a 400.
 * Answered here rather than thrown: the board's plugin has an error handler of its own.
 */
function installRefusals(app: FastifyInstance, context: ApiContext, lifecycle: Lifecycle): void {
  const pulse = redisPulse(context.redis);
  app.addHook('onClose', async () => pulse.stop());
  const refusal = (url: string): GatewayError | undefined => {
    if (lifecycle.closing && !SERVED_WHILE_CLOSING.test(url))
      return new GatewayError(
        'SERVICE_UNAVAILABLE',
        'this gateway process is stopping; nothing was queued: try again',
        1,
      );
    if ((context.redis.status === 'ready' && pulse.answering()) || SERVED_WITHOUT_REDIS.test(url))
      return undefined;
    return new GatewayError(
      'SERVICE_UNAVAILABLE',
      "the gateway's datastore cannot be reached; nothing was queued: try again shortly",
      REDIS_DOWN_RETRY_AFTER_S,
    );
  };
  app.addHook('onRequest', async (request, reply) => {
    const refused = refusal(request.url);
    if (refused !== undefined) return sendError(reply, request, refused);
    const unreadable = queryProblem(request.url);
    return unreadable === undefined
      ? undefined
      : sendError(reply, request, new GatewayError('BAD_REQUEST', unreadable));
  });
  // While it drains and stops, every answer closes its connection, so that a keep-alive client moves
  // to another process instead of holding this one open.
  app.addHook('onSend', async (_request, reply) => {
    if (lifecycle.leaving) reply.header('connection', 'close');
  });
}

const POISONED = 'the body has a __proto__ or constructor.prototype key, which is refused';

/** Valid JSON that Fastify's parser refused for a prototype-poisoning key (it says only "not valid JSON"). */
function poisoned(body: string): boolean {
  if (!/"(__proto__|constructor)"/.test(body)) return false;
  try {
    JSON.parse(body);
    return true;
  } catch {
    return false;
  }
}
