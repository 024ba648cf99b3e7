import {
  ACCESS_EXTENSION,
  AcceptedSchema,
  EnvelopeSchema,
  ErrorBodySchema,
  PAGING_EXTENSION,
} from '@cg/contract';
import { allOperations } from '@cg/operations';
import type { FastifyInstance } from 'fastify';
import type { ApiContext } from './context';
import { takesIdempotencyKey, WriteHeadersSchema } from './idempotency';
import { operationAccess, requireAccess } from './scope';
import { type ConnectedAccounts, type Operation, runOperation } from './submit';

/** One route per operation of the registry: validate, check the account, enqueue, answer. */
export function registerOperationRoutes(
  app: FastifyInstance,
  context: ApiContext,
  connected: ConnectedAccounts,
): void {
  for (const op of allOperations) {
    if (op.method === 'GET') refuseHead(app, op);
    app.route({
      method: op.method,
      url: op.path,
      exposeHeadRoute: false,
      schema: routeSchema(op),
      preValidation: async (request) => requireAccess(request, operationAccess(op), op.connects),
      handler: (request, reply) => runOperation(op, request, reply, context, connected),
    });
  }
}

/**
 * Fastify would answer HEAD by running the GET: a platform call (media stats: the account's
 * one-minute gap) for an answer without a body. HEAD is not allowed on operations.
 */
function refuseHead(app: FastifyInstance, op: Operation): void {
  app.route({
    method: 'HEAD',
    url: op.path,
    schema: { hide: true },
    // Not a method the path takes (`Allow` of a 405 elsewhere leaves it out).
    config: { refuses: true },
    handler: async (_request, reply) => reply.code(405).header('allow', 'GET').send(),
  });
}

/** The route's validation and OpenAPI schema, from the operation's definition. */
function routeSchema(op: Operation) {
  return {
    operationId: op.name,
    summary: op.summary,
    ...(op.description === undefined ? {} : { description: op.description }),
    tags: op.tags,
    ...(op.paging === undefined ? {} : { [PAGING_EXTENSION]: op.paging }),
    [ACCESS_EXTENSION]: { access: operationAccess(op), everyAccount: op.connects === true },
    security: [{ apiKey: [] }],
    ...(op.schemas.params ? { params: op.schemas.params } : {}),
    ...(op.schemas.querystring ? { querystring: op.schemas.querystring } : {}),
    ...(op.schemas.body ? { body: op.schemas.body } : {}),
    ...(takesIdempotencyKey(op) ? { headers: WriteHeadersSchema } : {}),
    response: {
      [op.successStatus]: EnvelopeSchema(op.schemas.data),
      ...(op.picksStatus
        ? { 200: EnvelopeSchema(op.schemas.data), 201: EnvelopeSchema(op.schemas.data) }
        : {}),
      202: AcceptedSchema,
      '4xx': ErrorBodySchema,
      '5xx': ErrorBodySchema,
    },
  };
}
