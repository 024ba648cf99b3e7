import { Type } from 'typebox';
import type { ApiRoute } from '../route';
import { answers, Iso, Nullable, ok, routeSchema } from '../schema';
import { type JobQuery, jobPage, LISTED_STATES } from './job-listing';

const ListedJob = Type.Object({
  jobId: Type.String(),
  operation: Type.String({ description: 'the operation id it runs' }),
  accountId: Nullable(Type.String(), 'the account it runs on; null for a login (connect, verify-2fa)'),
  state: Type.String({ description: LISTED_STATES.join(', ') }),
  submittedAt: Iso('when it was accepted'),
  answer: Type.Unknown({
    description:
      'what GET /jobs/{jobId} answers for it, its statusCode the HTTP status: the 202 envelope while it ' +
      'waits or runs, then the envelope or the error body the request would have had',
  }),
});

/** `GET /jobs`: the tenant's recent jobs, newest first, each as `GET /jobs/{jobId}` answers it. */
export const listJobs: ApiRoute = {
  name: 'jobs-list',
  method: 'GET',
  url: '/jobs',
  access: 'read',
  paging: { cursor: ['data', 'nextCursor'], items: ['data', 'jobs'] },
  schema: routeSchema('The tenant’s recent jobs, newest first, each with its status', 'jobs', {
    description:
      'Every request the tenant’s keys had accepted within the job retention (JOB_RETENTION_SECONDS), newest ' +
      'first, each with the answer GET /jobs/{jobId} gives. A key of some accounts sees only their jobs. A ' +
      'page holds up to limit jobs; with filters that skip many it may hold fewer (even none) and still ' +
      'name a nextCursor: follow it until it is null.',
    querystring: Type.Object({
      cursor: Type.Optional(Type.String({ maxLength: 100, description: 'nextCursor of the previous page' })),
      accountId: Type.Optional(Type.String({ maxLength: 100, description: 'only this account’s' })),
      state: Type.Optional(
        Type.String({ maxLength: 20, description: `only those ${LISTED_STATES.join(', ')}` }),
      ),
      operation: Type.Optional(Type.String({ maxLength: 100, description: 'only this operation id’s' })),
      limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    }),
    response: answers(
      200,
      Type.Object({
        jobs: Type.Array(ListedJob),
        nextCursor: Nullable(Type.String(), 'pass as cursor for the next page; null at the end'),
      }),
    ),
  }),
  async handler(request, _reply, { context }) {
    return ok(200, 'Success', await jobPage(request, request.query as JobQuery, context));
  },
};
