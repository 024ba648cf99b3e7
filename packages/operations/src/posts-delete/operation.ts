import { Upstream } from '@cg/contract';
import { refusedAs } from '../common/platform-refusal';
import { DeletedPost, PostParams } from '../common/post';
import { EXAMPLE_ACCOUNT_ID } from '../common/schemas';
import { accountUpdate, defineOperation, upstreamData } from '../define';

export const postsDelete = defineOperation({
  name: 'posts-delete',
  method: 'DELETE',
  path: '/:accountId/posts/:postId',
  summary: 'Delete a published post',
  tags: ['posts'],
  ...accountUpdate,
  // A repeat after an ambiguous failure answers this too: the first delete took effect.
  notFoundMessage: 'unknown or already deleted post',
  schemas: {
    params: PostParams,
    data: Upstream(DeletedPost.schema),
  },
  example: { params: { accountId: EXAMPLE_ACCOUNT_ID, postId: '821376102957428736' } },
  run: async ({ params }, { call }) => {
    const deleted = await refusedAs(
      'the post is still scheduled: cancel it instead (POST /{accountId}/posts/scheduled/{postId}/cancel)',
      () => call('postDelete', { params: { postId: params.postId } }),
      'CONFLICT',
    );
    return upstreamData(DeletedPost.from(deleted));
  },
});
