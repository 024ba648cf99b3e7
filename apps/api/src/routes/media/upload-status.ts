import { GatewayError } from '@cg/contract';
import { mediaUpload, UploadResult } from '@cg/operations';
import type { JobState, JobView } from '@cg/queue';
import { Type } from 'typebox';
import { openOutcome } from '../../answers';
import type { ApiContext } from '../../context';
import { reachable } from '../../scope';
import type { ApiRoute } from '../route';
import { answers, ok, routeSchema } from '../schema';
import type { MediaDeps } from './media-deps';

/** An unfinished job's state as an upload job shows it (a job the queue cannot place yet: waiting). */
const UPLOAD_STATES: Partial<Record<JobState, 'waiting' | 'active'>> = {
  waiting: 'waiting',
  delayed: 'waiting',
  active: 'active',
};

const UploadJob = Type.Object({
  jobId: Type.String(),
  state: Type.Union(['waiting', 'active', 'completed', 'failed'].map((state) => Type.Literal(state))),
  result: Type.Union([UploadResult, Type.Null()], { description: 'set when completed' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'the reason, when failed' }),
});

/** `GET /media/upload/{jobId}/status`: the upload job's state and, once completed, its media. */
export const uploadStatus: ApiRoute<MediaDeps> = {
  name: 'media-upload-status',
  method: 'GET',
  url: '/media/upload/:jobId/status',
  access: 'read',
  schema: routeSchema('An upload job’s state and, once completed, its media', 'media', {
    params: Type.Object({ jobId: Type.String({ pattern: '^job_[A-Za-z0-9]{1,64}$' }) }),
    response: answers(200, UploadJob),
  }),
  example: { params: { jobId: 'job_4Qm8ZtP2xLr6Ks0Wd1Vn3a' } },
  async handler(request, reply, { context }) {
    const { jobId } = request.params as { jobId: string };
    const view = await context.queue.get(jobId);
    const reached = view && reachable(request, [view], (job) => job.payload.accountId).length === 1;
    if (
      !view ||
      view.payload.tenantId !== request.tenantId ||
      view.payload.op !== mediaUpload.name ||
      !reached
    )
      throw new GatewayError('NOT_FOUND', `upload job ${jobId} not found (finished jobs are kept 24 hours)`);
    return reply.send(ok(200, 'Success', uploadJob(view, context)));
  },
};

/** The upload job as the contract shows it. */
function uploadJob(view: JobView, { keyring }: Pick<ApiContext, 'keyring'>) {
  const base = { jobId: view.id, result: null, error: null };
  if (view.state === 'completed' && view.outcome)
    return { ...base, state: 'completed', result: openOutcome(view.outcome, view.id, keyring).data };
  if (view.state === 'failed')
    return { ...base, state: 'failed', error: GatewayError.fromWire(view.failedReason).message };
  return { ...base, state: UPLOAD_STATES[view.state] ?? 'waiting' };
}
