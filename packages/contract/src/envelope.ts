import { type TSchema, Type } from 'typebox';
import { ERROR_STATUS } from './errors';

/** The payload an operation produces; the API adds `timestamp` when it answers. */
export interface Outcome {
  statusCode: number;
  message: string;
  data: unknown;
}

export interface Envelope extends Outcome {
  timestamp: string;
}

export function envelope(outcome: Outcome, now = new Date()): Envelope {
  return {
    statusCode: outcome.statusCode,
    message: outcome.message,
    data: outcome.data,
    timestamp: now.toISOString(),
  };
}

/** `{statusCode, message, data, timestamp}` around a `data` schema. */
export const EnvelopeSchema = <T extends TSchema>(data: T) =>
  Type.Object({
    statusCode: Type.Integer(),
    message: Type.String(),
    data,
    timestamp: Type.String({ format: 'date-time' }),
  });

/**
 * The usual `data` of the contract: `{status_code, data: {success, response, ...inner}, ...outer}`.
 * `inner` and `outer` place the cursor where each endpoint of the contract puts it.
 */
export const Upstream = <R extends TSchema>(
  response: R,
  options: { inner?: Record<string, TSchema>; outer?: Record<string, TSchema> } = {},
) =>
  Type.Object({
    status_code: Type.Integer(),
    data: Type.Object({ success: Type.Boolean(), response, ...options.inner }),
    ...options.outer,
  });

export const ErrorBodySchema = Type.Object(
  {
    statusCode: Type.Integer(),
    message: Type.String(),
    error: Type.String(),
    code: Type.Union(Object.keys(ERROR_STATUS).map((code) => Type.Literal(code))),
    requestId: Type.Optional(Type.String()),
  },
  { $id: 'ErrorBody' },
);

export const AcceptedSchema = EnvelopeSchema(
  Type.Object({
    jobId: Type.String(),
    state: Type.String({ description: 'waiting, delayed, active, completed or failed' }),
    statusUrl: Type.String(),
  }),
);
