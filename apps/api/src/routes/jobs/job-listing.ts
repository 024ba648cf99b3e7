import { GatewayError } from '@cg/contract';
import { allOperations, internalOperations } from '@cg/operations';
import { resultOf, type TenantJob, type TenantJobsCursor } from '@cg/queue';
import type { FastifyRequest } from 'fastify';
import { answerOf } from '../../answers';
import type { ApiContext } from '../../context';
import { reaches } from '../../scope';

// `GET /jobs`: the tenant's jobs from its index (packages/queue tenant-jobs.ts), newest first, each
// read as `GET /jobs/{jobId}` reads it. The index names each job's operation and account, so those
// filters and the key's reach cost no job read; the state is the job's own, read for the page.

/** The states a job is listed in (`JobState`, but the one no job is listed in). */
export const LISTED_STATES = ['waiting', 'delayed', 'active', 'completed', 'failed'] as const;
/** The operations a job may run: every route's, and the media routes' own. */
const OPERATION_NAMES = [...allOperations, ...internalOperations].map((op) => op.name);

/** Index entries looked at per read, and per request at most (a page may then be short). */
const CHUNK = 50;
const MAX_SCAN = 1_000;

export interface JobQuery {
  cursor?: string;
  accountId?: string;
  state?: string;
  operation?: string;
  limit: number;
}

/** `<submitted ms>.<jobId>`: the last entry a page looked at. */
const CURSOR = /^(\d{1,16})\.(job_[A-Za-z0-9]{1,64}(?:-[0-9]{1,4})?)$/;
const cursorOf = (last: TenantJobsCursor) => `${last.at}.${last.jobId}`;

/** 400 for a value the listing does not know, naming those it does. */
function checkQuery(query: JobQuery): TenantJobsCursor | undefined {
  if (query.state !== undefined && !(LISTED_STATES as readonly string[]).includes(query.state))
    throw new GatewayError(
      'BAD_REQUEST',
      `unknown state ${query.state}; states: ${LISTED_STATES.join(', ')}`,
    );
  if (query.operation !== undefined && !OPERATION_NAMES.includes(query.operation))
    throw new GatewayError(
      'BAD_REQUEST',
      `unknown operation ${query.operation}; operations: ${OPERATION_NAMES.join(', ')}`,
    );
  if (query.cursor === undefined) return undefined;
  const match = CURSOR.exec(query.cursor);
  if (!match) throw new GatewayError('BAD_REQUEST', 'cursor is not one this route answered');
  return { at: Number(match[1]), jobId: match[2] as string };
}

/** One page of the caller's jobs, and the cursor of the next (null at the end). */
export async function jobPage(request: FastifyRequest, query: JobQuery, context: ApiContext) {
  let from = checkQuery(query);
  const { tenantId, apiKey } = request;
  const wanted = (job: TenantJob) =>
    (query.accountId === undefined || job.accountId === query.accountId) &&
    (query.operation === undefined || job.op === query.operation) &&
    // A key of some accounts sees only their jobs (a login's job has none: every-account keys').
    (apiKey.accounts === null || (job.accountId !== undefined && reaches(apiKey, job.accountId)));
  const jobs: unknown[] = [];
  for (let scanned = 0; scanned < MAX_SCAN; ) {
    const entries = await context.queue.tenantJobs.page(tenantId, from, CHUNK);
    scanned += entries.length;
    const candidates = entries.filter(wanted);
    // Read as many as the page still wants at a time: a state filter may leave some out.
    for (let next = 0; next < candidates.length; ) {
      const group = candidates.slice(next, next + query.limit - jobs.length);
      next += group.length;
      const views = await Promise.all(group.map((job) => context.queue.get(job.jobId)));
      group.forEach((entry, n) => {
        const view = views[n];
        // Gone (its retention ended, its account was disconnected), or of another state.
        if (!view || view.payload.tenantId !== tenantId || (query.state ?? view.state) !== view.state) return;
        jobs.push({
          jobId: view.id,
          operation: entry.op,
          accountId: entry.accountId ?? null,
          state: view.state,
          submittedAt: new Date(entry.at).toISOString(),
          answer: answerOf(request, view.id, resultOf(view), context),
        });
      });
      if (jobs.length === query.limit) {
        const last = group.at(-1) as TenantJob;
        const ended = entries.length < CHUNK && last === entries.at(-1);
        return { jobs, nextCursor: ended ? null : cursorOf(last) };
      }
    }
    const last = entries.at(-1);
    // The index ended, and this page looked at all of it.
    if (entries.length < CHUNK || last === undefined) return { jobs, nextCursor: null };
    from = { at: last.at, jobId: last.jobId };
  }
  // Filters left most entries out: the page is short, and the listing goes on from here.
  return { jobs, nextCursor: from === undefined ? null : cursorOf(from) };
}
