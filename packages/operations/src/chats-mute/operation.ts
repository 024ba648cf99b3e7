import { Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { IGNORE_FLAGS, updateIgnoreFlags } from '../common/ignore';
import { AccountParams, accountExample, PlatformId } from '../common/schemas';
import { defineOperation, upstreamData } from '../define';

/** The acknowledgement of a mute or an unmute. */
export const MuteAck = Type.Object({
  targetUserId: Type.String({ description: 'the fan’s platform account id' }),
  muted: Type.Boolean({ description: 'true after mute, false after unmute' }),
});

const MuteBody = Type.Object({
  targetUserId: PlatformId('the fan’s platform account id'),
});

const muteOperation = <N extends 'chats-mute' | 'chats-unmute'>(name: N, muted: boolean) =>
  defineOperation({
    name,
    method: 'POST',
    path: muted ? '/:accountId/chats/mute' : '/:accountId/chats/unmute',
    summary: muted
      ? 'Turn off the creator’s notifications for one fan'
      : 'Turn the creator’s notifications for one fan back on',
    tags: ['chats'],
    session: 'path',
    write: true,
    successStatus: 200,
    notFoundMessage: 'unknown user',
    schemas: { params: AccountParams, body: MuteBody, data: Upstream(MuteAck) },
    example: { params: accountExample, body: { targetUserId: '788291264641499137' } },
    run: async ({ body }, { call }) => {
      // Only the mute bit changes: the fan's VIP and block bits are kept.
      await updateIgnoreFlags(call, body.targetUserId, (flags) =>
        muted ? flags | IGNORE_FLAGS.mute : flags & ~IGNORE_FLAGS.mute,
      );
      return upstreamData({ targetUserId: body.targetUserId, muted });
    },
  });

export const chatsMute = muteOperation('chats-mute', true);
export const chatsUnmute = muteOperation('chats-unmute', false);
