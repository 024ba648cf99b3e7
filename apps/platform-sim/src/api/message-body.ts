import { invalidField, notFound } from '../errors';
import { bodyObject, bodyString } from '../params';
import type { MessageAttachment } from '../records';
import { ATTACHMENT_ACCOUNT_MEDIA, ATTACHMENT_BUNDLE } from '../world/chats';
import type { ApiContext } from './types';

const MAX_MESSAGE_CONTENT = 5000;
const MESSAGE_ATTACHMENT_TYPES: readonly number[] = [ATTACHMENT_ACCOUNT_MEDIA, ATTACHMENT_BUNDLE];

/**
 * The `content` and `attachments[{contentId, contentType, pos}]` of a message body (a chat message, a
 * broadcast): an attachment names a media offer (1) or bundle (2) the creator made, else 404.
 */
export function messageBody(
  ctx: ApiContext,
  body: Record<string, unknown>,
): { content: string; attachments: Omit<MessageAttachment, 'messageId'>[] } {
  const content = bodyString(body, 'content', { allowEmpty: true, maxLength: MAX_MESSAGE_CONTENT }) ?? '';
  const rawAttachments = body.attachments ?? [];
  if (!Array.isArray(rawAttachments)) throw invalidField('attachments');
  const attachments = rawAttachments.map((raw, index) => {
    const attachment = bodyObject(raw);
    const { contentId, contentType } = attachment;
    if (typeof contentId !== 'string' || contentId === '') throw invalidField('attachments');
    if (typeof contentType !== 'number' || !MESSAGE_ATTACHMENT_TYPES.includes(contentType))
      throw invalidField('attachments');
    const pos = attachment.pos ?? index;
    if (typeof pos !== 'number' || !Number.isInteger(pos) || pos < 0) throw invalidField('attachments');
    return { contentId, contentType, pos };
  });
  if (content.trim() === '' && attachments.length === 0) throw invalidField('content');
  const conversations = ctx.core.world.conversations(ctx.creator);
  for (const attachment of attachments) {
    if (!conversations.hasContent(attachment.contentType, attachment.contentId))
      throw notFound('media offer');
  }
  return { content, attachments };
}
