import { allOperations } from '@cg/operations';
import { takesIdempotencyKey } from './idempotency';

/** The part of the generated OpenAPI document this module completes. */
export interface OpenApiDocument {
  paths?: Record<string, Record<string, OpenApiOperation>>;
}
interface OpenApiOperation {
  operationId?: string;
  parameters?: object[];
  responses?: Record<string, { headers?: Record<string, object> }>;
}

const OPERATION_IDS = new Set(allOperations.map((op) => op.name));
const KEYED_IDS = new Set(allOperations.filter(takesIdempotencyKey).map((op) => op.name));

const LOCATION = { description: 'the job status URL (also `data.statusUrl`)', schema: { type: 'string' } };
const REPLAYED = {
  description: '`true` when the answer is the job of an earlier request with the same `Idempotency-Key`',
  schema: { type: 'string' },
};
const RETRY_AFTER = {
  description:
    'seconds to wait before asking again: on 429 `RATE_LIMITED`, on 503 answers, and on the 409 of an `Idempotency-Key` whose first request is being queued',
  schema: { type: 'string' },
};

/**
 * Adds what the route schemas do not carry, for documentation only (a `headers` schema would be
 * checked on every request; writes have one, for `Idempotency-Key`): the `Prefer` header of the
 * operations, the `Location` of every 202, the `Retry-After` of the error answers (429 and 503), and
 * the `Idempotent-Replayed` of every answer of a write.
 */
export function documentAsyncAnswers<T extends OpenApiDocument>(doc: T): T {
  for (const methods of Object.values(doc.paths ?? {})) {
    for (const entry of Object.values(methods)) {
      const responses = entry.responses ?? {};
      const header = (status: string, name: string, value: object) => {
        const response = responses[status];
        if (response) response.headers = { ...response.headers, [name]: value };
      };
      header('202', 'location', LOCATION);
      header('4XX', 'retry-after', RETRY_AFTER);
      header('5XX', 'retry-after', RETRY_AFTER);
      if (!entry.operationId || !OPERATION_IDS.has(entry.operationId)) continue;
      if (KEYED_IDS.has(entry.operationId))
        for (const status of Object.keys(responses)) header(status, 'idempotent-replayed', REPLAYED);
      entry.parameters = [
        ...(entry.parameters ?? []),
        {
          in: 'header',
          name: 'prefer',
          required: false,
          description:
            '`respond-async`: answer 202 at once; `wait=<seconds>`: wait at most this long (never longer than the server does) before answering 202',
          schema: { type: 'string' },
        },
      ];
    }
  }
  return doc;
}
