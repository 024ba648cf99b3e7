import { allOperations } from '@cg/operations';

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

/**
 * Adds what the route schemas do not carry, for documentation only (a `headers` schema would be
 * checked on every request): the `Prefer` header of the operations, and the `Location` of their 202.
 */
export function documentAsyncAnswers<T extends OpenApiDocument>(doc: T): T {
  for (const methods of Object.values(doc.paths ?? {})) {
    for (const entry of Object.values(methods)) {
      if (!entry.operationId || !OPERATION_IDS.has(entry.operationId)) continue;
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
      const accepted = entry.responses?.['202'];
      if (accepted) {
        accepted.headers = {
          ...accepted.headers,
          location: { description: 'the job status URL (also `data.statusUrl`)', schema: { type: 'string' } },
        };
      }
    }
  }
  return doc;
}
