import { Upstream } from '@cg/contract';
import { coerce, type Raw } from '../common/coerce';
import { PostsAnswer, postsAnswer } from '../common/post';
import { AccountParams, accountExample } from '../common/schemas';
import { accountRead, defineOperation, upstreamData } from '../define';

const { obj, arr, str, num } = coerce;

/** `status` of a `/post/scheduled` entry still to be published (seen: FBuddy counts these). */
export const SCHEDULE_STATUS_SCHEDULED = 1;

export const postsScheduled = defineOperation({
  name: 'posts-scheduled',
  method: 'GET',
  path: '/:accountId/posts/scheduled',
  summary: 'The creator’s posts still to be published, the soonest first',
  description:
    'Not in the gateway contract (issue 25 asks for it). data.data.response has posts (Post in read form, each with its scheduledFor in Unix ms), accountMedia, accountMediaBundles and accounts, as GET /{accountId}/posts/{postId} answers. Published and cancelled schedules are left out. No cursor: the platform answers the whole list at once.',
  tags: ['posts'],
  ...accountRead,
  schemas: {
    params: AccountParams,
    data: Upstream(PostsAnswer),
  },
  example: { params: accountExample },
  run: async (_input, { call }) => {
    const fetched = obj(await call('postsScheduled'));
    const aggregation = obj(fetched.aggregationData);
    const byId = new Map(arr(aggregation.posts).map((post): [string, Raw] => [str(post.id), post]));
    const pending = arr(fetched.scheduledPosts)
      .filter((entry) => num(entry.status) === SCHEDULE_STATUS_SCHEDULED)
      .sort((a, b) => num(a.scheduledFor) - num(b.scheduledFor));
    const posts = pending.map((entry) => byId.get(str(entry.postId))).filter((post) => post !== undefined);
    return upstreamData(postsAnswer(aggregation, posts));
  },
});
