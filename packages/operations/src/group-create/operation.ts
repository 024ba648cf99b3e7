import { GatewayError, Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { coerce } from '../common/coerce';
import { refusedAs } from '../common/platform-refusal';
import { AccountParams, accountExample, Nullable, PlatformId, Text } from '../common/schemas';
import { accountCreate, defineOperation, type OperationContext, upstreamData } from '../define';
import { RecipientGroup } from '../mass-messages-scheduled/operation';

const { obj, arr, str } = coerce;

/** A direct chat: the only group type this operation opens (broadcast groups come with mass messages). */
const DIRECT_CHAT = 1;
/** The largest chat-list page the platform serves: enough rows for one fan's username search. */
const SEARCH_PAGE = 100;

const GroupUserInput = Type.Object({
  userId: PlatformId('a platform account id: the creator’s or the fan’s'),
  permissionFlags: Type.Integer({ minimum: 0, maximum: 0, description: 'must be 0' }),
});

/** The chat the creator already has with a fan, as a group record; null when there is none. */
async function existingChat(
  call: OperationContext['call'],
  fanId: string,
): Promise<Record<string, unknown> | null> {
  // The fan's username is what the chat list searches on; an unknown account is a 404 here.
  const [profile] = arr(await call('accountsByIds', { query: { ids: fanId } }));
  if (!profile || str(profile.id) !== fanId) throw new GatewayError('NOT_FOUND', 'unknown fan');
  const found = obj(
    await call('messagingGroups', {
      query: { sortOrder: 1, flags: 0, search: str(profile.username), limit: SEARCH_PAGE, offset: 0 },
    }),
  );
  const row = arr(found.data).find((chat) => str(chat.partnerAccountId) === fanId);
  if (!row) return null;
  const groupId = str(row.groupId);
  const group = arr(obj(found.aggregationData).groups).find((g) => str(g.id) === groupId) ?? { id: groupId };
  // The chat list's group names its flags `flags`; the group record `groupFlags`.
  return { type: DIRECT_CHAT, ...group, groupFlags: group.groupFlags ?? group.flags ?? 0 };
}

export const groupCreate = defineOperation({
  name: 'group-create',
  method: 'POST',
  path: '/:accountId/group',
  summary: 'Open the direct chat between the creator and a fan, or return it if it exists',
  tags: ['chats'],
  ...accountCreate,
  notFoundMessage: 'unknown fan',
  schemas: {
    params: AccountParams,
    body: Type.Object({
      users: Type.Array(GroupUserInput, {
        minItems: 2,
        maxItems: 2,
        description: 'exactly two: the creator (the connected account’s platform id) and the fan',
      }),
      type: Type.Optional(
        Type.Integer({ minimum: 1, maximum: 1, description: '1 (direct chat), the default' }),
      ),
      recipients: Type.Optional(
        Type.Array(Type.Unknown(), { maxItems: 0, description: 'empty for a direct chat' }),
      ),
      lastMessage: Type.Optional(Type.Null()),
      // The object first: a 400 then names the field inside it, not "must be null".
      userSettings: Type.Optional(
        Nullable(
          Type.Object({
            customName: Type.Optional(Nullable(Text(undefined, { maxLength: 100 }))),
            hidden: Type.Optional(Type.Boolean()),
          }),
        ),
      ),
    }),
    data: Upstream(RecipientGroup.schema),
  },
  example: {
    params: accountExample,
    body: {
      users: [
        { userId: '788291264641499137', permissionFlags: 0 },
        { userId: '781244157402251264', permissionFlags: 0 },
      ],
      type: 1,
    },
  },
  check: ({ body }) => {
    const [first, second] = body.users;
    if (first && second && first.userId === second.userId)
      return 'users must name two different accounts: the creator and the fan';
    return undefined;
  },
  run: async ({ body }, { call, account }) => {
    const creatorId = account?.platformAccountId ?? '';
    const ids = body.users.map((user) => user.userId);
    const fanId = ids.find((id) => id !== creatorId);
    if (creatorId === '' || !ids.includes(creatorId) || fanId === undefined)
      throw new GatewayError(
        'BAD_REQUEST',
        'users must be the creator (this account’s platform id) and one other user',
      );
    // The platform answers "exists" and "refused" with one error: an existing chat is looked up first,
    // which also makes a repeat return the same chat.
    const existing = await existingChat(call, fanId);
    if (existing) return upstreamData(RecipientGroup.from(existing));
    const created = await refusedAs(
      'the platform does not let the creator message this fan',
      () =>
        call('groupCreate', {
          body: {
            users: ids.map((userId) => ({ userId, permissionFlags: 0 })),
            recipients: [],
            lastMessage: null,
            userSettings: body.userSettings ?? null,
            type: DIRECT_CHAT,
          },
        }),
      'CONFLICT',
    );
    return upstreamData(RecipientGroup.from(created));
  },
});
