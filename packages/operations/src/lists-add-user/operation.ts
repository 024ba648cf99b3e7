import { Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { coerce } from '../common/coerce';
import { ListMember } from '../common/list-member';
import { AccountParams, accountExample, NonBlank } from '../common/schemas';
import { accountCreate, defineOperation, upstreamData } from '../define';

/** The platform's list item type for an account (the only kind a fan list holds). */
const LIST_ITEM_TYPE_ACCOUNT = 1;

// Platform ids are snowflakes of at most 19 digits; the platform refuses ids over 64 characters as
// malformed (400), so the bound is checked here and an unknown id of any other shape stays a 404.
// A blank one is refused here too, not sent for the platform to refuse without naming it.
const PlatformId = (description: string) => NonBlank(description, { maxLength: 64 });

export const listsAddUser = defineOperation({
  name: 'lists-add-user',
  method: 'POST',
  path: '/:accountId/lists/users',
  summary: 'Add a fan to a list',
  tags: ['lists'],
  ...accountCreate,
  notFoundMessage: 'the list does not exist on this account, or the user is not a platform account',
  schemas: {
    params: AccountParams,
    body: Type.Object({
      userId: PlatformId('platform account id of the fan'),
      listId: PlatformId('id of the list'),
    }),
    data: Upstream(Type.Array(ListMember.schema)),
  },
  example: { params: accountExample, body: { userId: '820777337321685250', listId: '777496454758400275' } },
  run: async ({ body }, { call }) => {
    const added = await call('listItemsAdd', {
      body: { listItems: [{ id: body.userId, listId: body.listId, type: LIST_ITEM_TYPE_ACCOUNT }] },
    });
    return upstreamData(coerce.arr(added).map(ListMember.from));
  },
});
