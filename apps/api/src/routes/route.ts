import { ACCESS_EXTENSION, PAGING_EXTENSION, type Paging } from '@cg/contract';
import type { OperationExample } from '@cg/operations';
import type { KeyAccess } from '@cg/store';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema, HTTPMethods } from 'fastify';
import type { ApiContext } from '../context';
import { requireAccess } from '../scope';
import type { ConnectedAccounts } from '../submit';

/** What a hand-written route's handler is given besides its request: the API's parts. */
export interface RouteDeps {
  context: ApiContext;
  connected: ConnectedAccounts;
}

/**
 * A route written by hand (the operations' routes come from their definitions: operation-routes.ts),
 * one per file under routes/<area>/: its operation id, method, URL, schema (its validation and its
 * OpenAPI entry) and handler. `D` is what the handler is given (`RouteDeps`, or an area's own).
 *
 * Every route file has this one layout: `export const x: ApiRoute = { name, method, url, schema:
 * routeSchema(summary, tag, { params, response: answers(...) }), handler }`, the handler finding its
 * record (`callerEndpoint`, `callerJob`) before acting. Two route files that share runs of those
 * lines share this shape, not logic: it is the form a route takes.
 */
export interface ApiRoute<D = RouteDeps> {
  /** The OpenAPI operationId. */
  name: string;
  method: HTTPMethods;
  url: string;
  /** A function where the schema names a setting (read at registration). */
  schema: FastifySchema | ((deps: D) => FastifySchema);
  /** Its values in the OpenAPI document (openapi.ts `documentExample`). */
  example?: OperationExample;
  /** A paged listing: where its answer keeps the next page's cursor and its items (`x-paging`). */
  paging?: Paging;
  /** The access a key needs (scope.ts), checked before the request is validated: else 403. */
  access: KeyAccess;
  /** Only a key of every account may (what it acts on is the tenant's, not an account's). */
  everyAccount?: true;
  handler(request: FastifyRequest, reply: FastifyReply, deps: D): Promise<unknown>;
}

/** Registers `routes`, in their order, their handlers given `deps`. */
export function registerRoutes<D>(app: FastifyInstance, routes: readonly ApiRoute<D>[], deps: D): void {
  for (const route of routes) {
    const schema = typeof route.schema === 'function' ? route.schema(deps) : route.schema;
    app.route({
      method: route.method,
      url: route.url,
      schema: {
        operationId: route.name,
        ...schema,
        ...(route.paging === undefined ? {} : { [PAGING_EXTENSION]: route.paging }),
        [ACCESS_EXTENSION]: { access: route.access, everyAccount: route.everyAccount === true },
      },
      preValidation: async (request) => requireAccess(request, route.access, route.everyAccount),
      handler: (request, reply) => route.handler(request, reply, deps),
    });
  }
}
