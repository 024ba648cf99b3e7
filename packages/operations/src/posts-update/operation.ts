import { Upstream } from '@cg/contract';
import { checkPost, Post, PostBody, PostParams, postWriteFailure, upstreamPost } from '../common/post';
import { EXAMPLE_ACCOUNT_ID } from '../common/schemas';
import { accountUpdate, defineOperation, upstreamData } from '../define';

export const postsUpdate = defineOperation({
  name: 'posts-update',
  method: 'POST',
  path: '/:accountId/posts/:postId',
  summary: 'Replace a post’s content and settings',
  description:
    'The body is the whole post, with the fields and rules of POST /{accountId}/posts, and it replaces the post: any field left out is cleared (no text, no media, unrestricted replies, no expiry, not pinned, the main wall when wallIds is missing). To change one field, read the post first (GET /{accountId}/posts/{postId}) and send back every field you keep: content, mediaIds (the contentIds of its attachments, in order), wallIds, pinWallIds, expiresAt and scheduledFor, with the one you change. The Post record does not show access_type, price, previewId or replyPermissions: send them again as you set them, or they are cleared too. The post keeps its id, and sending the same body again changes nothing. scheduledFor moves a post still scheduled (0 publishes it now); a published post takes only its own scheduledFor back unchanged (or none).',
  tags: ['posts'],
  ...accountUpdate,
  schemas: {
    params: PostParams,
    body: PostBody,
    data: Upstream(Post.schema),
  },
  example: {
    params: { accountId: EXAMPLE_ACCOUNT_ID, postId: '821376102957428736' },
    body: {
      content: 'New set is up: the full shoot for subscribers 📸 (now with the bonus clip)',
      mediaIds: ['820357346407481613', '820093651534217485', '819911223344556677'],
      wallIds: ['781154356071919616'],
      access_type: ['ppv'],
      price: 9.99,
      replyPermissions: { subscribed: true },
    },
  },
  check: ({ body }) => checkPost(body),
  run: async ({ params, body }, { call }) => {
    try {
      const edited = await call('postEdit', { params: { postId: params.postId }, body: upstreamPost(body) });
      return upstreamData(Post.from(edited));
    } catch (error) {
      throw await postWriteFailure(error, body, call, params.postId);
    }
  },
});
