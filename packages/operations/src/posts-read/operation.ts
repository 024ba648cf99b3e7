import { GatewayError, Upstream } from '@cg/contract';
import { coerce } from '../common/coerce';
import { PostParams, PostsAnswer, postsAnswer } from '../common/post';
import { EXAMPLE_ACCOUNT_ID } from '../common/schemas';
import { accountRead, defineOperation, upstreamData } from '../define';

const { obj, arr, str } = coerce;

export const postsRead = defineOperation({
  name: 'posts-read',
  method: 'GET',
  path: '/:accountId/posts/:postId',
  summary: 'Read one of the creator’s posts, with the media and accounts it refers to',
  tags: ['posts'],
  ...accountRead,
  schemas: {
    params: PostParams,
    // `posts` stays an array of one, as the platform answers it.
    data: Upstream(PostsAnswer),
  },
  example: { params: { accountId: EXAMPLE_ACCOUNT_ID, postId: '821376102957428736' } },
  run: async ({ params }, { call, account }) => {
    const fetched = obj(await call('postsByIds', { query: { ids: params.postId } }));
    // The platform reads any post by id; this account's posts are the ones under its path.
    const owner = account?.platformAccountId;
    const posts = arr(fetched.posts).filter(
      (post) => str(post.id) === params.postId && (owner === undefined || str(post.accountId) === owner),
    );
    if (posts.length === 0)
      throw new GatewayError('NOT_FOUND', `unknown post ${params.postId}: no such post on this account`);
    return upstreamData(postsAnswer(fetched, posts));
  },
});
