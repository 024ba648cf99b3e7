import { Upstream } from '@cg/contract';
import { type Static, Type } from 'typebox';
import {
  AUTOMATION_TRIGGERS,
  AutomatedMessage,
  RENEW_TRIGGERS,
  TIP_TRIGGER,
  TRIGGER_NAMES,
  type TriggerName,
} from '../common/automated-message';
import { offerAttachments } from '../common/media-offer';
import { checkMediaPermissions, mediaPermissionFields } from '../common/media-permissions';
import { MESSAGE_TYPE_ORDINARY, MessageText } from '../common/message';
import { dollarsToMills } from '../common/money';
import { refusedAs } from '../common/platform-refusal';
import { AccountParams, accountExample, NonBlank } from '../common/schemas';
import { accountCreate, defineOperation, upstreamData } from '../define';

/** Chosen bounds: the platform states none. A year of delay or cooldown, a tip of $1,000,000. */
const MAX_SECONDS = 365 * 24 * 3600;
const MAX_STREAK = 1000;
const MAX_TIP_DOLLARS = 1_000_000;
const MAX_KEYWORDS = 50;

const Seconds = (description: string) =>
  Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_SECONDS, description }));

const CreateBody = Type.Object({
  // A pattern rather than a union of literals: the 400 then reads "must be one of new_follower, ...".
  triggerType: Type.String({
    pattern: `^(${TRIGGER_NAMES.join('|')})$`,
    description: `one of ${TRIGGER_NAMES.join(', ')}`,
  }),
  content: MessageText,
  delay: Seconds('seconds between the trigger and the send; default 0'),
  cooldown: Seconds('seconds before the same fan can receive this rule again; default 0'),
  subscriptionStreak: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_STREAK,
      description: `the renewal count that fires the rule; only with ${RENEW_TRIGGERS.join(', ')}`,
    }),
  ),
  tipAmount: Type.Optional(
    Type.Number({
      minimum: 0.01,
      maximum: MAX_TIP_DOLLARS,
      description: 'dollars: the smallest tip that fires the rule; only with new_tip',
    }),
  ),
  keywords: Type.Optional(
    Type.Array(NonBlank('a word matched in the tip’s note', { maxLength: 100 }), {
      maxItems: MAX_KEYWORDS,
      description: 'words matched in the tip’s note; only with new_tip',
    }),
  ),
  ...mediaPermissionFields,
});
type CreateBody = Static<typeof CreateBody>;

/** A field sent with a trigger it does not apply to is refused rather than dropped (contract, chosen). */
export function checkTriggerFields(body: CreateBody): string | undefined {
  const trigger = body.triggerType as TriggerName;
  if (body.subscriptionStreak !== undefined && !RENEW_TRIGGERS.includes(trigger))
    return `subscriptionStreak is only for triggerType ${RENEW_TRIGGERS.join(' or ')}`;
  for (const field of ['tipAmount', 'keywords'] as const)
    if (body[field] !== undefined && trigger !== TIP_TRIGGER)
      return `${field} is only for triggerType ${TIP_TRIGGER}`;
  return undefined;
}

/** The platform's `triggerMetadata` (GUESS keys): the trigger's parameters, the tip in mills. */
export function triggerMetadata(body: CreateBody): string {
  return JSON.stringify({
    ...(body.subscriptionStreak === undefined ? {} : { subscriptionStreak: body.subscriptionStreak }),
    ...(body.tipAmount === undefined ? {} : { tipAmount: dollarsToMills(body.tipAmount) }),
    ...(body.keywords === undefined ? {} : { keywords: body.keywords }),
  });
}

export const automatedMessagesCreate = defineOperation({
  name: 'automated-messages-create',
  method: 'POST',
  path: '/:accountId/automated-messages',
  summary: 'Create a rule that sends a message when a trigger fires (a follow, a subscription, a tip, …)',
  tags: ['messages'],
  // Two platform writes when it carries media (the offer, then the rule): never repeated once either
  // may have been applied.
  ...accountCreate,
  notFoundMessage: 'a media, tier or list the body names is not this account’s',
  schemas: {
    params: AccountParams,
    body: CreateBody,
    data: Upstream(AutomatedMessage.schema),
  },
  example: {
    params: accountExample,
    body: {
      triggerType: 'new_tip',
      content: 'Thank you so much for the tip! Here is a little something back 💕',
      delay: 60,
      cooldown: 86_400,
      tipAmount: 10,
      keywords: ['custom', 'request'],
      mediaIds: ['820357346407481613'],
    },
  },
  check: ({ body }) => checkTriggerFields(body) ?? checkMediaPermissions(body),
  run: async ({ body }, { call, account }) => {
    const senderId = account?.platformAccountId ?? '';
    const attachments = await offerAttachments(body, senderId, call);
    const created = await refusedAs(
      `the platform refuses another rule for triggerType ${body.triggerType}: delete the existing one first`,
      () =>
        call('automatedMessageCreate', {
          body: {
            triggerType: AUTOMATION_TRIGGERS[body.triggerType as TriggerName],
            triggerMetadata: triggerMetadata(body),
            delay: body.delay ?? 0,
            cooldown: body.cooldown ?? 0,
            messageTemplate: { type: MESSAGE_TYPE_ORDINARY, content: body.content, attachments, senderId },
          },
        }),
      'CONFLICT',
    );
    return upstreamData(AutomatedMessage.from(created));
  },
});
