import { AcceptedSchema, EnvelopeSchema, ErrorBodySchema } from '@cg/contract';
import { resultOf } from '@cg/queue';
import { Type } from 'typebox';
import { sendResult } from '../../answers';
import type { ApiRoute } from '../route';
import { routeSchema } from '../schema';
import { callerJob, JobParams } from './caller-job';

/**
 * `GET /jobs/{jobId}`: 202 with the state while the job waits or runs; once it has finished, the
 * very status and body the synchronous call would have answered.
 */
export const jobStatus: ApiRoute = {
  name: 'job-status',
  method: 'GET',
  url: '/jobs/:jobId',
  access: 'read',
  schema: routeSchema('State and, once finished, the result of an accepted request', 'jobs', {
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
  }),
  async handler(request, reply, { context }) {
    const view = await callerJob(request, context);
    return sendResult(reply, request, view.id, resultOf(view), context);
  },
};
