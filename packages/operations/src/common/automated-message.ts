import { Type } from 'typebox';
import { coerce, type Raw } from './coerce';
import { MessageAttachment } from './message';
import { millsToDollars } from './money';
import { f, type RecordValue, record } from './record';

/**
 * The contract's trigger names onto the platform's numeric `triggerType`. GUESS
 * (docs/upstream-decisions.md, automated messages): only 3 (a new subscription) is seen in public
 * sources; the other codes are this gateway's choice, kept in step with the sandbox's
 * AUTOMATION_TRIGGER_CODES. Its names, in the contract's order, are also the triggerType values create
 * accepts.
 */
export const AUTOMATION_TRIGGERS = {
  new_follower: 1,
  new_subscriber: 3,
  new_gift_link_subscriber: 5,
  subscriber_renew: 4,
  new_gift_link_subscriber_renew: 6,
  new_tip: 7,
  disabled: 0,
} as const;
export type TriggerName = keyof typeof AUTOMATION_TRIGGERS;
export const TRIGGER_NAMES = Object.keys(AUTOMATION_TRIGGERS) as TriggerName[];

/** The name the record gives a platform code the table does not hold. */
export const UNKNOWN_TRIGGER = 'unknown';

const namesByCode: ReadonlyMap<number, TriggerName> = new Map(
  TRIGGER_NAMES.map((name) => [AUTOMATION_TRIGGERS[name], name]),
);

/** The contract's name of a platform trigger code: `unknown` for a code with no name here. */
export const triggerName = (code: unknown): string => namesByCode.get(coerce.num(code)) ?? UNKNOWN_TRIGGER;

/** The triggers that take `subscriptionStreak`, and the one that takes `tipAmount` and `keywords`. */
export const RENEW_TRIGGERS: readonly TriggerName[] = ['subscriber_renew', 'new_gift_link_subscriber_renew'];
export const TIP_TRIGGER: TriggerName = 'new_tip';

/** An object the platform may send as JSON text: `{}` when it is neither an object nor such text. */
function jsonObject(value: unknown): Raw {
  if (typeof value !== 'string') return coerce.obj(value);
  try {
    return coerce.obj(JSON.parse(value));
  } catch {
    return {};
  }
}

/** The platform's `messageTemplate`: an object (or JSON text of one). */
const templateOf = (raw: Raw): Raw => jsonObject(raw.messageTemplate);
/**
 * The platform's `triggerMetadata` (JSON text, GUESS keys): `{subscriptionStreak}` on the renewal
 * triggers, `{tipAmount (mills), keywords}` on new_tip, `{}` otherwise.
 */
const metadataOf = (raw: Raw): Raw => jsonObject(raw.triggerMetadata);

/** A template's attachment belongs to no message yet: its messageId is the platform's, else null. */
const TemplateAttachment = MessageAttachment.extend({
  messageId: f.nullableString(undefined, { emptyIsNull: true }),
});

export const MessageTemplate = record({
  type: f.number('1 for an ordinary message'),
  content: f.string(),
  attachments: f.array(TemplateAttachment),
  senderId: f.id('the creator’s platform account id'),
});

const streakOf = (raw: Raw) => coerce.nullableNum(metadataOf(raw).subscriptionStreak);
const tipOf = (raw: Raw) => {
  const mills = coerce.nullableNum(metadataOf(raw).tipAmount);
  return mills === null ? null : millsToDollars(mills);
};

/**
 * The contract's Automated message: the request vocabulary (trigger name, seconds, dollars,
 * keywords) beside the platform's own fields (platformTriggerType, messageTemplate, triggerMetadata).
 */
export const AutomatedMessage = record({
  id: f.id('use it as {automatedMessageId}'),
  accountId: f.id('the creator’s platform account id'),
  triggerType: f.custom(
    Type.String({ description: `${TRIGGER_NAMES.join(', ')}; ${UNKNOWN_TRIGGER} for a code with no name` }),
    triggerName,
  ),
  platformTriggerType: f.from('triggerType', f.number('the platform’s trigger code (3 a new subscription)')),
  delay: f.number('seconds between the trigger and the send'),
  cooldown: f.number('seconds before the same fan can receive this rule again'),
  subscriptionStreak: f.from(streakOf, f.nullableNumber('renewal triggers: the renewal count that fires')),
  tipAmount: f.from(tipOf, f.nullableNumber('new_tip: the smallest tip that fires, in dollars')),
  keywords: f.from(
    (raw) => metadataOf(raw).keywords,
    f.array(f.string(), 'new_tip: words matched in the tip’s note'),
  ),
  content: f.from((raw) => templateOf(raw).content, f.string()),
  attachments: f.from((raw) => templateOf(raw).attachments, f.array(TemplateAttachment)),
  messageTemplate: f.from(
    templateOf,
    f.record(MessageTemplate, 'platform form: type, content, attachments, senderId'),
  ),
  triggerMetadata: f.jsonText('platform JSON text with the trigger’s parameters'),
});
export type AutomatedMessage = RecordValue<typeof AutomatedMessage>;
