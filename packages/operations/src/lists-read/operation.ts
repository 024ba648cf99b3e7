import { inData, Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { coerce } from '../common/coerce';
import { idCursor, splitPage } from '../common/id-cursor';
import { ListMemberWithSortId } from '../common/list-member';
import { AccountParams, EXAMPLE_ACCOUNT_ID, PlatformId, Text } from '../common/schemas';
import { accountRead, defineOperation, upstreamData } from '../define';

/** Members per page. The contract sets no page size; one extra is fetched to see if more exist. */
export const LIST_PAGE_SIZE = 50;
/** The platform's list order (by sortId, oldest addition first); it is what `after` pages over. */
const SORT_MODE = 3;

const CURSOR_RULE = 'must be a nextCursor this endpoint answered (an item’s platform id)';

export const listsRead = defineOperation({
  name: 'lists-read',
  paging: { cursor: inData('nextCursor'), items: inData('response') },
  method: 'GET',
  path: '/:accountId/lists/:listId',
  summary: 'The fans of a list, oldest addition first',
  tags: ['lists'],
  ...accountRead,
  notFoundMessage: 'the list does not exist on this account',
  schemas: {
    params: Type.Object({
      ...AccountParams.properties,
      listId: PlatformId('id of the list'),
    }),
    querystring: Type.Object({
      cursor: Type.Optional(Text('nextCursor of the previous page (the last member’s sortId)')),
    }),
    // nextCursor is typed string only in the contract: "" marks the last page.
    data: Upstream(Type.Array(ListMemberWithSortId.schema), { inner: { nextCursor: Type.String() } }),
  },
  example: {
    params: { accountId: EXAMPLE_ACCOUNT_ID, listId: '777496454758400275' },
    query: { cursor: '777496454758400276' },
  },
  check: ({ query }) => idCursor.check(query.cursor, CURSOR_RULE),
  run: async ({ params, query }, { call }) => {
    const fetched = await call('listItemsRead', {
      query: {
        listId: params.listId,
        limit: LIST_PAGE_SIZE + 1,
        after: idCursor.toUpstream(query.cursor),
        sortMode: SORT_MODE,
      },
    });
    const page = splitPage(
      coerce.arr(fetched).map(ListMemberWithSortId.from),
      LIST_PAGE_SIZE,
      (member) => member.sortId,
    );
    return upstreamData(page.items, { nextCursor: page.next ?? '' });
  },
});
