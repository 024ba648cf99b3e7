import { AcceptedSchema, EnvelopeSchema, ErrorBodySchema, envelope, GatewayError } from '@cg/contract';
import { type JobView, resultOf } from '@cg/queue';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { jobStatusUrl, sendResult } from './answers';
import type { ApiContext } from './context';

const JobParams = Type.Object({ jobId: Type.String({ pattern: '^job_[A-Za-z0-9]{1,64}(-[0-9]{1,4})?$' }) });

/**
 * `GET /jobs/{jobId}`: 202 with the state while the job waits or runs; once it has finished, the
 * very status and body the synchronous call would have answered. `DELETE /jobs/{jobId}` cancels a
 * request that has not started. Another tenant's job is 404.
 */
export function registerJobRoutes(app: FastifyInstance, context: ApiContext): void {
  /** The caller's job, or 404. */
  const jobOf = async (request: FastifyRequest): Promise<JobView> => {
    const { jobId } = request.params as { jobId: string };
    const view = await context.queue.get(jobId);
    if (!view || view.payload.tenantId !== request.tenantId) {
      throw new GatewayError(
        'NOT_FOUND',
        `job ${jobId} not found (finished jobs are kept for a limited time)`,
      );
    }
    return view;
  };

  app.get(
    '/jobs/:jobId',
    {
      schema: {
        operationId: 'job-status',
        summary: 'State and, once finished, the result of an accepted request',
        tags: ['jobs'],
        security: [{ apiKey: [] }],
        params: JobParams,
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
      const view = await jobOf(request);
      return sendResult(reply, request, view.id, resultOf(view), context);
    },
  );

  app.delete(
    '/jobs/:jobId',
    {
      schema: {
        operationId: 'job-cancel',
        summary: 'Cancel an accepted request that has not started',
        description:
          'A request still waiting (its turn behind the account, pacing, a 429 pause, the media-stats gap, a ' +
          "retry's backoff) leaves its account's queue and ends with 409 JOB_CANCELLED at its status URL, never sent to the " +
          'platform; cancelling it again answers the same. One a worker has taken or is about to take (its ' +
          'platform call may be on its way), a read in a batch and a finished one are 409 JOB_NOT_CANCELLABLE.',
        tags: ['jobs'],
        security: [{ apiKey: [] }],
        params: JobParams,
        response: {
          200: EnvelopeSchema(
            Type.Object({ jobId: Type.String(), state: Type.Literal('cancelled'), statusUrl: Type.String() }),
          ),
          '4xx': ErrorBodySchema,
          '5xx': ErrorBodySchema,
        },
      },
    },
    async (request, reply) => {
      const view = await jobOf(request);
      const done = await context.queue.cancel(view);
      if (done !== 'cancelled') {
        throw new GatewayError(
          'JOB_NOT_CANCELLABLE',
          done === 'finished'
            ? `job ${view.id} has finished: GET its status URL for its result`
            : `job ${view.id} is running or about to: its platform call may be on its way, so it can no longer be cancelled`,
        );
      }
      const statusUrl = jobStatusUrl(request, view.id, context.config);
      return reply.status(200).send(
        envelope({
          statusCode: 200,
          message: 'Cancelled',
          data: { jobId: view.id, state: 'cancelled', statusUrl },
        }),
      );
    },
  );
}
