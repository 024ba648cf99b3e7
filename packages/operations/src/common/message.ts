import { Reaction } from '../messages-like/operation';
import type { Raw } from './coerce';
import type { OfferAttachment } from './media-offer';
import { f, type RecordValue, record } from './record';
import { NonBlank } from './schemas';

/** The platform takes at most this much message text (sandbox README, `POST /message`). */
export const MAX_MESSAGE_CHARS = 5000;
/** A message's text (a chat message, a mass message): not empty or only whitespace. */
export const MessageText = NonBlank('the message text; not empty or only whitespace', {
  long: true,
  maxLength: MAX_MESSAGE_CHARS,
});

/** The message an attachment or an interaction belongs to: the platform may leave it to its message. */
const messageIdOr = (raw: Raw, message: Raw) => raw.messageId ?? message.id ?? null;

/**
 * Message attachment. contentType: 1 account-media offer, 2 media bundle offer, 7 tip, 8 quoted
 * post, 7100 tip goal, 32001 locked text, 42001 poll. For media, contentId is the offer's id.
 */
export const MessageAttachment = record({
  contentId: f.id('for media, the id of the media offer'),
  contentType: f.number('1 account-media offer, 2 bundle offer, 7 tip, 8 quoted post, …'),
  pos: f.number(),
  messageId: f.from(messageIdOr, f.nullableString(undefined, { emptyIsNull: true })),
});

export const MessageInteraction = record({
  groupId: f.from((raw, message) => raw.groupId ?? message.groupId, f.id()),
  userId: f.id(),
  messageId: f.from((raw, message) => raw.messageId ?? message.id, f.id()),
  // Unix ms, 0 until it happens (the platform may send null for "not yet").
  readAt: f.number('Unix ms; 0 until read'),
  deliveredAt: f.number('Unix ms; 0 until delivered'),
});

/**
 * The contract's Message: the platform's message object passed through. createdAt and deletedAt
 * stay Unix seconds (the contract's exception); totalTipAmount stays mills.
 */
export const Message = record({
  id: f.id(),
  type: f.number('1 for an ordinary message'),
  dataVersion: f.number(),
  content: f.string(),
  groupId: f.id('the chat'),
  senderId: f.id('the author’s platform account id'),
  correlationId: f.id("'0' when none", { fallback: '0' }),
  inReplyTo: f.nullableString(),
  inReplyToRoot: f.nullableString(),
  createdAt: f.number('Unix seconds, possibly fractional'),
  attachments: f.array(MessageAttachment),
  embeds: f.array(f.unknown()),
  interactions: f.array(MessageInteraction),
  likes: f.array(Reaction),
  totalTipAmount: f.number('mills'),
  deletedAt: f.optional(f.number('Unix seconds; present only on a deleted message')),
});
export type Message = RecordValue<typeof Message>;

export const MESSAGE_TYPE_ORDINARY = 1;

/**
 * The body of a message the creator sends (`POST /message`, `POST /message/broadcast`), as the
 * platform's own client builds it: `scheduledFor` 0 sends at once, `createdAt` is Unix seconds with
 * a fraction.
 */
export function outgoingMessage(
  groupId: string,
  content: string,
  attachments: OfferAttachment[],
  scheduledFor = 0,
): Record<string, unknown> {
  return {
    type: MESSAGE_TYPE_ORDINARY,
    groupId,
    content,
    attachments,
    likes: [],
    scheduledFor,
    inReplyTo: null,
    createdAt: Date.now() / 1000,
  };
}
