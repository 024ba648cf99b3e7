import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { newRequestId, REQUEST_ID_HEADER } from './errors';

/**
 * A caller's own id is taken when it is short and made of characters that need no escaping anywhere
 * it is written (a log line, a header, a job's data): a UUID, a trace id, `checkout-42`. Anything
 * else (too long, spaces, two headers joined by ", ") is replaced by one of ours rather than refused:
 * an id is for finding the request again, and a request is never failed for it.
 */
const CALLER_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * Fastify's `genReqId`: the caller's `X-Request-Id` when it is well-formed, else a new id. The same
 * id is the error body's `requestId`, the `requestId` of the API's log lines and the job's
 * (`JobPayload.requestId`), so a caller who sends one can find the request in every process's log.
 */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && CALLER_ID.test(given) ? given : newRequestId();
}

/**
 * Every answer names its request id in `X-Request-Id`. Set as the request arrives, so that answers
 * sent by any later hook, handler or plugin (the refusals, the 404s, Bull Board) carry it too; the
 * answers sent before a request exists (the router's refusals) set it in `sendError`.
 */
export function echoRequestId(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
}
