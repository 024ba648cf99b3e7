import type { Socket } from 'node:net';
import { errorBody, GatewayError, STATUS_NAMES } from '@cg/contract';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { validationMessage } from './validation';

/** The longest path parameter the router takes; ids are far shorter. */
export const MAX_PARAM_LENGTH = 100;

export const newRequestId = () => `req_${Math.random().toString(36).slice(2, 12)}`;

/** Names each answer's request id (the error body's `requestId`): request-id.ts. */
export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * Answers with the one error body, `Retry-After` included when it names a wait. For hooks that must
 * answer before a plugin's own error handler could reshape the error (Bull Board's).
 */
export function sendError(reply: FastifyReply, request: FastifyRequest, error: GatewayError): FastifyReply {
  if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
  // Also answers the router's refusals, which come before any hook could set it.
  reply.header(REQUEST_ID_HEADER, request.id);
  return reply.status(error.statusCode).send(errorBody(error, request.id));
}

/**
 * The methods each route takes, by its path's segments, so that a known path asked for with a method
 * it does not take is 405 with `Allow` rather than 404. Filled by an `onRoute` hook; read only on a
 * miss. Left out: routes with a wildcard (static files), routes `except` names (Bull Board's, whose
 * own credentials come first), and `HEAD` routes that exist to refuse it (`config.refuses`).
 */
export class RouteMethods {
  /** Each route's segments, `undefined` where a parameter matches any one segment. */
  private readonly routes: { segments: (string | undefined)[]; method: string }[] = [];

  constructor(private readonly except: (url: string) => boolean = () => false) {}

  add(method: string | string[], url: string, config?: unknown): void {
    if (url.includes('*') || this.except(url)) return;
    if ((config as { refuses?: boolean } | undefined)?.refuses) return;
    const segments = url.split('/').map((s) => (s.startsWith(':') ? undefined : s));
    for (const one of [method].flat()) this.routes.push({ segments, method: one });
  }

  /**
   * The methods some route takes at `path` (no query), sorted; empty when no route has the path.
   * Matched as the router matches: segment by segment, a trailing slash being another path, a
   * parameter at most `MAX_PARAM_LENGTH` long.
   */
  allowed(path: string): string[] {
    const parts = path.split('/').map(decodedSegment);
    const methods = new Set<string>();
    for (const { segments, method } of this.routes) {
      if (segments.length !== parts.length) continue;
      const matches = segments.every((segment, i) => {
        const part = parts[i] as string;
        return segment === undefined ? part !== '' && part.length <= MAX_PARAM_LENGTH : segment === part;
      });
      if (matches) methods.add(method);
    }
    return [...methods].sort();
  }
}

function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** No route: 405 with `Allow` when the path is a route's under another method, else 404. */
export function notFound(methods: RouteMethods) {
  return (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const path = request.url.split('?')[0] ?? '';
    const allow = methods.allowed(path);
    // A method the path's routes take that still missed (a parameter the router refused): no route.
    if (allow.length === 0 || allow.includes(request.method))
      return sendError(reply, request, new GatewayError('NOT_FOUND', `no route ${request.method} ${path}`));
    reply.header('allow', allow.join(', '));
    return sendError(
      reply,
      request,
      new GatewayError(
        'METHOD_NOT_ALLOWED',
        `${path} does not take ${request.method}: use ${allow.join(' or ')}`,
      ),
    );
  };
}

/** One error handler, one error body: `{statusCode, message, error, code, requestId}`. */
export function installErrorHandling(app: FastifyInstance, methods: RouteMethods): void {
  app.setErrorHandler((error: FastifyError | GatewayError, request, reply) => {
    const gatewayError = toGatewayError(error);
    // The platform's failures (502/503) are the platform's story; only our own 500s are errors here.
    if (gatewayError.code === 'INTERNAL') request.log.error({ err: error }, 'request failed');
    else if (gatewayError.statusCode >= 500)
      request.log.warn({ code: gatewayError.code }, 'request failed upstream');
    return sendError(reply, request, gatewayError);
  });
  app.setNotFoundHandler(notFound(methods));
}

function toGatewayError(error: FastifyError | GatewayError): GatewayError {
  if (error instanceof GatewayError) return error;
  if (error.validation)
    return new GatewayError('BAD_REQUEST', validationMessage(error.validation, error.validationContext));
  // Fastify's own client errors: malformed JSON, wrong content type, body too large...
  if (error.statusCode === 413) return new GatewayError('PAYLOAD_TOO_LARGE', 'the request body is too large');
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return new GatewayError('BAD_REQUEST', safeClientMessage(error));
  }
  return new GatewayError('INTERNAL', 'the gateway failed to handle the request');
}

function safeClientMessage(error: FastifyError): string {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'send the body as application/json';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'the JSON body is empty';
    default:
      return error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError
        ? 'the body is not valid JSON'
        : 'bad request';
  }
}

/**
 * The router's own refusals, before any route runs: a path with broken percent-encoding, or a path
 * parameter longer than `MAX_PARAM_LENGTH`. Answered in the one error shape, without echoing the path.
 */
export function frameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const message =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? `a path parameter is longer than ${MAX_PARAM_LENGTH} characters`
      : error.code === 'FST_ERR_BAD_URL'
        ? 'the path is not a valid URL'
        : 'bad request';
  void sendError(reply, request, new GatewayError('BAD_REQUEST', message));
}

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (a control character in a header,
 * headers too large, a request that never finished arriving): the same error shape, then the
 * connection closes, as Node's own answer does.
 */
export function clientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const gatewayError =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? new GatewayError('REQUEST_TIMEOUT', 'the request did not arrive in time')
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? new GatewayError('HEADERS_TOO_LARGE', 'the request headers are too large')
        : new GatewayError('BAD_REQUEST', 'the request is not valid HTTP');
  const requestId = newRequestId();
  const body = JSON.stringify(errorBody(gatewayError, requestId));
  if (socket.writable) {
    const status = gatewayError.statusCode;
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_NAMES[status]}\r\nContent-Type: application/json\r\n` +
        `X-Request-Id: ${requestId}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
