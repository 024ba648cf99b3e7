import { GatewayError } from '@cg/contract';
import { Type } from 'typebox';
import { jobStatusUrl } from '../../answers';
import type { ApiRoute } from '../route';
import { answers, ok, routeSchema } from '../schema';
import { callerJob, JobParams } from './caller-job';

/** `DELETE /jobs/{jobId}`: cancels a request that has not started. */
export const cancelJob: ApiRoute = {
  name: 'job-cancel',
  method: 'DELETE',
  url: '/jobs/:jobId',
  access: 'write',
  schema: routeSchema('Cancel an accepted request that has not started', 'jobs', {
    description:
      'A request still waiting (its turn behind the account, pacing, a 429 pause, the media-stats gap, a ' +
      "retry's backoff) leaves its account's queue and ends with 409 JOB_CANCELLED at its status URL, never sent to the " +
      'platform; cancelling it again answers the same. One a worker has taken or is about to take (its ' +
      'platform call may be on its way), a read in a batch and a finished one are 409 JOB_NOT_CANCELLABLE.',
    params: JobParams,
    response: answers(
      200,
      Type.Object({ jobId: Type.String(), state: Type.Literal('cancelled'), statusUrl: Type.String() }),
    ),
  }),
  async handler(request, reply, { context }) {
    const view = await callerJob(request, context);
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
    return reply.status(200).send(ok(200, 'Cancelled', { jobId: view.id, state: 'cancelled', statusUrl }));
  },
};
