import { GatewayError, Upstream } from '@cg/contract';
import { isRefusal } from '../common/platform-refusal';
import { Post, PostParams, postIsReadable } from '../common/post';
import { EXAMPLE_ACCOUNT_ID } from '../common/schemas';
import { accountUpdate, defineOperation, upstreamData } from '../define';

export const postsScheduledCancel = defineOperation({
  name: 'posts-scheduled-cancel',
  method: 'POST',
  path: '/:accountId/posts/scheduled/:postId/cancel',
  summary: 'Cancel a scheduled post before it is published',
  tags: ['posts'],
  ...accountUpdate,
  notFoundMessage: 'unknown scheduled post',
  schemas: {
    params: PostParams,
    data: Upstream(Post.schema),
  },
  example: { params: { accountId: EXAMPLE_ACCOUNT_ID, postId: '821376102957428736' } },
  run: async ({ params }, { call }) => {
    try {
      return upstreamData(
        Post.from(await call('postScheduledCancel', { params: { postId: params.postId } })),
      );
    } catch (error) {
      if (!isRefusal(error)) throw error;
      // The platform refuses both alike; a cancelled post no longer reads, a published one does.
      throw new GatewayError(
        'CONFLICT',
        (await postIsReadable(params.postId, call))
          ? 'the post is already published: it can no longer be cancelled (delete it instead)'
          : 'the post is already cancelled (after an ambiguous failure, this means the first cancel took effect)',
      );
    }
  },
});
