import { GatewayError, Upstream } from '@cg/contract';
import { PlatformError } from '@cg/platform-client';
import { Type } from 'typebox';
import { isRefusal } from '../common/platform-refusal';
import { Post, PostParams, unknownWall } from '../common/post';
import { EXAMPLE_ACCOUNT_ID, PlatformId } from '../common/schemas';
import { accountUpdate, defineOperation, upstreamData } from '../define';

export const postsPin = defineOperation({
  name: 'posts-pin',
  method: 'POST',
  path: '/:accountId/posts/:postId/pin',
  summary: 'Pin a post on one of the walls it is published on',
  tags: ['posts'],
  ...accountUpdate,
  schemas: {
    params: PostParams,
    body: Type.Object({ wallId: PlatformId('the wall to pin the post on; one of the post’s wallIds') }),
    data: Upstream(Post.schema),
  },
  example: {
    params: { accountId: EXAMPLE_ACCOUNT_ID, postId: '821376102957428736' },
    body: { wallId: '781154356071919616' },
  },
  run: async ({ params, body }, { call }) => {
    try {
      // Pinning a pinned post answers it unchanged.
      return upstreamData(
        Post.from(await call('postPin', { body: { postId: params.postId, wallId: body.wallId } })),
      );
    } catch (error) {
      if (isRefusal(error))
        throw new GatewayError(
          'CONFLICT',
          `the post is not published on wall ${body.wallId}: it is still scheduled, or the wall is not one of its wallIds`,
        );
      // The platform answers an unknown post and an unknown wall alike: the account's walls tell which.
      if (error instanceof PlatformError && error.kind === 'not_found')
        throw new GatewayError(
          'NOT_FOUND',
          (await unknownWall([body.wallId], call)) === undefined
            ? `unknown post ${params.postId}: no such post on this account`
            : `wall ${body.wallId} is not one of this account's walls`,
        );
      throw error;
    }
  },
});
