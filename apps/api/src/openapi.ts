import { allOperations, type OperationExample } from '@cg/operations';
import { takesIdempotencyKey } from './idempotency';
import { ROUTE_EXAMPLES } from './routes';

/** The part of the generated OpenAPI document this module completes. */
export interface OpenApiDocument {
  paths?: Record<string, Record<string, OpenApiOperation>>;
}
interface OpenApiOperation {
  operationId?: string;
  parameters?: object[];
  requestBody?: { content?: Record<string, { example?: unknown }> };
  responses?: Record<string, { headers?: Record<string, object> }>;
}
/** A parameter's fields this module reads (and `example`, which it writes). */
interface OpenApiParameter {
  in?: string;
  name?: string;
  example?: unknown;
}

const OPERATIONS = new Map(allOperations.map((op) => [op.name, op]));
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
 * operations, the `Location` of every 202, the `Retry-After` of the error answers (429 and 503), the
 * `Idempotent-Replayed` of every answer of a write, and each operation's example (`documentExample`).
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
      const example = entry.operationId === undefined ? undefined : ROUTE_EXAMPLES[entry.operationId];
      if (example !== undefined) documentExample(entry, example);
      const op = entry.operationId === undefined ? undefined : OPERATIONS.get(entry.operationId);
      if (op === undefined) continue;
      documentExample(entry, op.example);
      if (KEYED_IDS.has(op.name))
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

/**
 * The operation's `example` (its definition's, checked against its schemas by the operations' unit
 * tests) on its request: the body's as the JSON media type's `example`, each path and query value as
 * its parameter's `example`. Kept out of the route schemas, which Ajv compiles to validate requests.
 */
function documentExample(entry: OpenApiOperation, example: OperationExample): void {
  const { params, query, body } = example;
  const json = entry.requestBody?.content?.['application/json'];
  if (json && body !== undefined) json.example = body;
  const values: Record<string, Record<string, unknown> | undefined> = { path: params, query };
  for (const parameter of (entry.parameters ?? []) as OpenApiParameter[]) {
    const value = values[parameter.in ?? '']?.[parameter.name ?? ''];
    if (value !== undefined) parameter.example = value;
  }
}
