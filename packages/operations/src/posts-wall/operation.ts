import { GatewayError, inData, inResponse, Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { coerce, type Raw } from '../common/coerce';
import { idCursor } from '../common/id-cursor';
import { PostsAnswer, postsAnswer } from '../common/post';
import { AccountParams, EXAMPLE_ACCOUNT_ID, Nullable, PlatformId, Text } from '../common/schemas';
import { accountRead, defineOperation, upstreamData } from '../define';
import { Wall } from '../posts-walls/operation';

const { obj, arr, str } = coerce;

/** The platform's fixed page of `/timelinenew` (upstream-extended.md 1.5). */
export const WALL_PAGE_SIZE = 15;

const CURSOR_RULE = 'must be a cursor this endpoint answered (the id of the oldest post read)';

export const postsWall = defineOperation({
  name: 'posts-wall',
  paging: { cursor: inData('nextCursor'), items: inResponse('posts') },
  method: 'GET',
  path: '/:accountId/posts/wall/:wallId',
  summary: 'The posts on one of the creator’s walls, newest first',
  tags: ['posts'],
  ...accountRead,
  schemas: {
    params: Type.Object({ ...AccountParams.properties, wallId: PlatformId('id of the wall') }),
    querystring: Type.Object({
      cursor: Type.Optional(Text('data.data.nextCursor of the previous page')),
    }),
    // The next cursor sits beside response (data.data.nextCursor), null after the oldest post.
    data: Upstream(Type.Object({ wall: Wall.schema, ...PostsAnswer.properties }), {
      inner: { nextCursor: Nullable(Type.String()) },
    }),
  },
  example: { params: { accountId: EXAMPLE_ACCOUNT_ID, wallId: '781154356071919616' }, query: {} },
  check: ({ query }) => idCursor.check(query.cursor, CURSOR_RULE),
  run: async ({ params, query }, { call, account }) => {
    if (!account) throw new GatewayError('INTERNAL', 'posts-wall needs the connected account');
    // The walls first: an unknown wall is a 404 before any timeline call, and the answer stands alone.
    const wall = arr(obj(await call('accountWalls')).walls).find((w) => str(w.id) === params.wallId);
    if (!wall)
      throw new GatewayError('NOT_FOUND', `wall ${params.wallId} is not one of this account's walls`);
    const page = obj(
      await call('timeline', {
        params: { accountId: account.platformAccountId },
        // `before` is the oldest post already read: strictly older ones, newest first.
        query: { before: idCursor.toUpstream(query.cursor) ?? '0', after: '0', wallId: params.wallId },
      }),
    );
    const ids = arr(page.posts).map((post) => str(post.id));
    // The timeline leaves out each post's wallIds; the read by id has the whole post. A post deleted
    // between the two reads is left out.
    const full = ids.length === 0 ? {} : obj(await call('postsByIds', { query: { ids: ids.join(',') } }));
    const byId = new Map(arr(full.posts).map((post): [string, Raw] => [str(post.id), post]));
    const posts = ids.map((id) => byId.get(id)).filter((post) => post !== undefined);
    // A full page may have older posts behind it (the platform gives no count): the next page says.
    const nextCursor = ids.length >= WALL_PAGE_SIZE ? (ids.at(-1) ?? null) : null;
    return upstreamData({ wall: Wall.from(wall), ...postsAnswer(full, posts) }, { nextCursor });
  },
});
