import { Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { type OfferAttachment, offerAttachments } from '../common/media-offer';
import { checkMediaPermissions, mediaPermissionFields } from '../common/media-permissions';
import { Message, MessageText, outgoingMessage } from '../common/message';
import { refusedAs } from '../common/platform-refusal';
import { AccountParams, EXAMPLE_ACCOUNT_ID, PlatformId } from '../common/schemas';
import { defineOperation, upstreamData } from '../define';

const SendBody = Type.Object({
  content: MessageText,
  ...mediaPermissionFields,
});

export const chatMessagesSend = defineOperation({
  name: 'chat-messages-send',
  method: 'POST',
  path: '/:accountId/chats/:chatId/messages',
  summary: 'Send a message in a chat: text, free media, or gated media (PPV and other access rules)',
  tags: ['chats'],
  session: 'path',
  // Two platform writes when it carries media (the offer, then the message): never repeated once
  // either may have been applied.
  write: true,
  successStatus: 201,
  notFoundMessage: 'the chat, or a media, tier or list it names, is not this account’s',
  schemas: {
    params: Type.Object({
      ...AccountParams.properties,
      chatId: PlatformId('the chat’s groupId'),
    }),
    body: SendBody,
    data: Upstream(Message.schema),
  },
  example: {
    params: { accountId: EXAMPLE_ACCOUNT_ID, chatId: '788291264641499403' },
    body: {
      content: 'Here is the full set from Sunday 💕',
      mediaIds: ['820357346407481613'],
      access_type: 'ppv',
      price: 9.99,
    },
  },
  check: ({ body }) => checkMediaPermissions(body),
  run: async ({ params, body }, { call, account }) => {
    const groupId = params.chatId;
    let attachments: OfferAttachment[] = [];
    if ((body.mediaIds?.length ?? 0) > 0) {
      // An unknown chat is answered (404) before the offer is made, so it leaves no offer behind.
      await call('chatMessages', { query: { groupId, limit: 1 } });
      attachments = await offerAttachments(body, account?.platformAccountId ?? '', call);
    }
    const sent = await refusedAs(
      'the platform refuses delivery in this chat (the fan cannot receive messages)',
      () => call('messageSend', { body: outgoingMessage(groupId, body.content, attachments) }),
      'CONFLICT',
    );
    return upstreamData(Message.from(sent));
  },
});
