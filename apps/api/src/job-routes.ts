import { AcceptedSchema, EnvelopeSchema, ErrorBodySchema, GatewayError } from '@cg/contract';
import { resultOf } from '@cg/queue';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { sendResult } from './answers';
import type { ApiContext } from './context';

/**
 * `GET /jobs/{jobId}`: 202 with the state while the job waits or runs; once it has finished, the
 * very status and body the synchronous call would have answered. Another tenant's job is 404.
 */
export function registerJobRoutes(app: FastifyInstance, context: ApiContext): void {
  app.get(
    '/jobs/:jobId',
    {
      schema: {
        operationId: 'job-status',
        summary: 'State and, once finished, the result of an accepted request',
        tags: ['jobs'],
        security: [{ apiKey: [] }],
        params: Type.Object({ jobId: Type.String({ pattern: '^job_[A-Za-z0-9]{1,64}(-[0-9]{1,4})?$' }) }),
        response: {
          202: AcceptedSchema,
          '2xx': {
            description: 'finished: the status and envelope of the operation that was accepted',
            ...EnvelopeSchema(Type.Unknown({ description: "the operation's data" })),
          },
          '4xx': ErrorBodySchema,
          '5xx': ErrorBodySchema,
        },
      },
    },
    async (request, reply) => {
      const { jobId } = request.params as { jobId: string };
      const view = await context.queue.get(jobId);
      if (!view || view.payload.tenantId !== request.tenantId) {
        throw new GatewayError(
          'NOT_FOUND',
          `job ${jobId} not found (finished jobs are kept for a limited time)`,
        );
      }
      return sendResult(reply, request, jobId, resultOf(view), context);
    },
  );
}
