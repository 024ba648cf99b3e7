import { Upstream } from '@cg/contract';
import { checkPost, Post, PostBody, postWriteFailure, upstreamPost } from '../common/post';
import { AccountParams, accountExample } from '../common/schemas';
import { accountCreate, defineOperation, upstreamData } from '../define';

export const postsCreate = defineOperation({
  name: 'posts-create',
  method: 'POST',
  path: '/:accountId/posts',
  summary: 'Publish a post to the creator’s wall',
  tags: ['posts'],
  ...accountCreate,
  notFoundMessage: "a media id or wall id is not one of this account's",
  schemas: {
    params: AccountParams,
    body: PostBody,
    data: Upstream(Post.schema),
  },
  example: {
    params: accountExample,
    body: {
      content: 'New set is up: the full shoot for subscribers 📸',
      mediaIds: ['820357346407481613', '820093651534217485'],
      access_type: ['ppv'],
      price: 9.99,
      replyPermissions: { subscribed: true, tipped: true, tippedMinAmount: 5 },
    },
  },
  check: ({ body }) => checkPost(body),
  run: async ({ body }, { call }) => {
    try {
      return upstreamData(Post.from(await call('postCreate', { body: upstreamPost(body) })));
    } catch (error) {
      throw await postWriteFailure(error, body, call);
    }
  },
});
