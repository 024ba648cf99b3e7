import { EnvelopeSchema, ErrorBodySchema, envelope } from '@cg/contract';
import type { FastifySchema } from 'fastify';
import { type TSchema, Type } from 'typebox';

/** The area of the API a route is listed under in the OpenAPI document. */
export type RouteTag = 'accounts' | 'jobs' | 'webhooks' | 'events' | 'media' | 'keys' | 'usage' | 'audit';

/** A hand-written route's schema: its summary and tag, the API key it takes, the rest its own. */
export const routeSchema = (summary: string, tag: RouteTag, rest: FastifySchema): FastifySchema => ({
  summary,
  tags: [tag],
  security: [{ apiKey: [] }],
  ...rest,
});

/** The answers of a route: its envelope at `status`, the error body otherwise. */
export const answers = (status: number, data: TSchema) => ({
  [status]: EnvelopeSchema(data),
  '4xx': ErrorBodySchema,
  '5xx': ErrorBodySchema,
});

/** The envelope of a successful answer. */
export const ok = (statusCode: number, message: string, data: unknown) =>
  envelope({ statusCode, message, data });

/** `schema` or null. */
export const Nullable = <T extends TSchema>(schema: T, description: string) =>
  Type.Union([schema, Type.Null()], { description });

/** An ISO-8601 time. */
export const Iso = (description: string) => Type.String({ format: 'date-time', description });
