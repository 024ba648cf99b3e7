import { Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { IGNORE_FLAGS, updateIgnoreFlags } from '../common/ignore';
import { AccountParams, EXAMPLE_ACCOUNT_ID, PlatformId } from '../common/schemas';
import { accountUpdate, defineOperation, upstreamData } from '../define';

/** The acknowledgement of a fan marked VIP. */
export const VipAck = Type.Object({
  fanId: Type.String({ description: 'the fan’s platform account id' }),
  vip: Type.Literal(true),
});

export const chatsVip = defineOperation({
  name: 'chats-vip',
  method: 'POST',
  path: '/:accountId/chats/:fanId/vip',
  summary: 'Mark a fan as VIP (the chat list’s vips filter then finds them)',
  tags: ['chats'],
  ...accountUpdate,
  notFoundMessage: 'unknown fan',
  schemas: {
    params: Type.Object({
      ...AccountParams.properties,
      fanId: PlatformId('the fan’s platform account id (not a chat id)'),
    }),
    data: Upstream(VipAck),
  },
  example: { params: { accountId: EXAMPLE_ACCOUNT_ID, fanId: '788291264641499137' } },
  run: async ({ params }, { call }) => {
    // Only the VIP bit is set: the mute and block bits are kept.
    await updateIgnoreFlags(call, params.fanId, (flags) => flags | IGNORE_FLAGS.vip);
    return upstreamData({ fanId: params.fanId, vip: true as const });
  },
});
