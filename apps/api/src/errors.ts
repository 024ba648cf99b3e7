import { errorBody, GatewayError } from '@cg/contract';
import type { FastifyError, FastifyInstance } from 'fastify';
import { validationMessage } from './validation';

/** One error handler, one error body: `{statusCode, message, error, code, requestId}`. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | GatewayError, request, reply) => {
    const gatewayError = toGatewayError(error);
    // The platform's failures (502/503) are the platform's story; only our own 500s are errors here.
    if (gatewayError.code === 'INTERNAL') request.log.error({ err: error }, 'request failed');
    else if (gatewayError.statusCode >= 500)
      request.log.warn({ code: gatewayError.code }, 'request failed upstream');
    if (gatewayError.retryAfterSeconds !== undefined)
      reply.header('retry-after', String(gatewayError.retryAfterSeconds));
    return reply.status(gatewayError.statusCode).send(errorBody(gatewayError, request.id));
  });
  app.setNotFoundHandler((request, reply) =>
    reply
      .status(404)
      .send(
        errorBody(
          new GatewayError('NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`),
          request.id,
        ),
      ),
  );
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
