import { GatewayError } from '@cg/contract';
import type { JobView } from '@cg/queue';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { ApiContext } from '../../context';
import { reachable } from '../../scope';

/** `{jobId}` of the job routes: a queue job id, `<batch>-<n>` for a read that travelled in a batch. */
export const JobParams = Type.Object({
  jobId: Type.String({ pattern: '^job_[A-Za-z0-9]{1,64}(-[0-9]{1,4})?$' }),
});

/** The caller's job named by the path, or 404: another tenant's job is one that does not exist. */
export async function callerJob(request: FastifyRequest, { queue }: ApiContext): Promise<JobView> {
  const { jobId } = request.params as { jobId: string };
  const view = await queue.get(jobId);
  const reached = view && reachable(request, [view], (job) => job.payload.accountId).length === 1;
  if (!view || view.payload.tenantId !== request.tenantId || !reached) {
    throw new GatewayError('NOT_FOUND', `job ${jobId} not found (finished jobs are kept for a limited time)`);
  }
  return view;
}
