import { Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { coerce } from '../common/coerce';
import { ListMember, toListMember } from '../common/list-member';
import { AccountParams } from '../common/schemas';
import { defineOperation, upstreamData } from '../define';

/** The platform's list item type for an account (the only kind a fan list holds). */
const LIST_ITEM_TYPE_ACCOUNT = 1;

// Platform ids are snowflakes of at most 19 digits; the platform refuses ids over 64 characters as
// malformed (400), so the bound is checked here and an unknown id of any shape stays a 404.
const PlatformId = (description: string) => Type.String({ minLength: 1, maxLength: 64, description });

export const listsAddUser = defineOperation({
  name: 'lists-add-user',
  method: 'POST',
  path: '/:accountId/lists/users',
  summary: 'Add a fan to a list',
  tags: ['lists'],
  session: 'path',
  write: true,
  successStatus: 201,
  notFoundMessage: 'the list does not exist on this account, or the user is not a platform account',
  schemas: {
    params: AccountParams,
    body: Type.Object({
      userId: PlatformId('platform account id of the fan'),
      listId: PlatformId('id of the list'),
    }),
    data: Upstream(Type.Array(ListMember)),
  },
  check: ({ body }) => {
    if (body.userId.trim() === '') return 'userId must not be blank: the platform account id of the fan';
    if (body.listId.trim() === '') return 'listId must not be blank: the id of the list';
    return undefined;
  },
  run: async ({ body }, { call }) => {
    const added = await call('listItemsAdd', {
      body: { listItems: [{ id: body.userId, listId: body.listId, type: LIST_ITEM_TYPE_ACCOUNT }] },
    });
    return upstreamData(coerce.arr(added).map(toListMember));
  },
});
