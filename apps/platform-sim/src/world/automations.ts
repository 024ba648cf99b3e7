import { encodeId, Kind, type RuntimeIds } from '../ids';
import type { MessageAttachment } from '../records';
import { ATTACHMENT_ACCOUNT_MEDIA } from './chats';
import { type CreatorWorld, DAY_MS } from './creator';
import type { CreatorState } from './state';

/**
 * `triggerType` codes of `/message/automated`, by code (GUESS, docs/upstream-decisions.md, automated
 * messages; the gateway's AUTOMATION_TRIGGERS): only 3, a new subscription, is seen in public sources.
 */
export const AUTOMATION_TRIGGER_CODES = {
  disabled: 0,
  new_follower: 1,
  /** A trigger the platform has and the gateway has no name for (its record says `unknown`). */
  unnamed: 2,
  new_subscriber: 3,
  subscriber_renew: 4,
  new_gift_link_subscriber: 5,
  new_gift_link_subscriber_renew: 6,
  new_tip: 7,
} as const;
export const KNOWN_TRIGGER_CODES: readonly number[] = Object.values(AUTOMATION_TRIGGER_CODES);
/** The renewal triggers: the only ones whose metadata may hold `subscriptionStreak`. */
export const RENEW_TRIGGER_CODES: readonly number[] = [
  AUTOMATION_TRIGGER_CODES.subscriber_renew,
  AUTOMATION_TRIGGER_CODES.new_gift_link_subscriber_renew,
];

export interface AutomationTemplate {
  type: number;
  content: string;
  attachments: Omit<MessageAttachment, 'messageId'>[];
  senderId: string;
}

/** One rule as `GET /message/automated` lists it; `triggerMetadata` is JSON text. */
export interface AutomatedMessage {
  id: string;
  accountId: string;
  triggerType: number;
  triggerMetadata: string;
  delay: number;
  cooldown: number;
  messageTemplate: AutomationTemplate;
}

export type NewAutomation = Omit<AutomatedMessage, 'id' | 'accountId'>;

const MINUTE_S = 60;
const DAY_S = 86_400;

/** The seeded rules, in this order; a creator has the first 2 to 4. The first carries a media offer. */
const SEEDS: readonly (Omit<NewAutomation, 'messageTemplate'> & { content: string })[] = [
  {
    triggerType: AUTOMATION_TRIGGER_CODES.new_subscriber,
    triggerMetadata: '{}',
    delay: 2 * MINUTE_S,
    cooldown: 0,
    content: 'Welcome to my page 💕 here is a little gift to say thank you',
  },
  {
    triggerType: AUTOMATION_TRIGGER_CODES.unnamed,
    triggerMetadata: '{}',
    delay: 0,
    cooldown: 7 * DAY_S,
    content: 'Thanks for your message! I answer everyone within a day',
  },
  {
    triggerType: AUTOMATION_TRIGGER_CODES.disabled,
    triggerMetadata: '{}',
    delay: 0,
    cooldown: 0,
    content: 'Weekend special coming soon (draft)',
  },
  {
    triggerType: AUTOMATION_TRIGGER_CODES.subscriber_renew,
    triggerMetadata: JSON.stringify({ subscriptionStreak: 3 }),
    delay: 10 * MINUTE_S,
    cooldown: 30 * DAY_S,
    content: 'Three months together 🥰 thank you for staying',
  },
];

/**
 * One creator's automated-message rules: seeded from the world, then changed by creates and
 * deletes. Only `disabled` may hold several rules; the platform refuses a second of any other trigger.
 */
export class Automations {
  private readonly rules = new Map<string, AutomatedMessage>();

  constructor(
    private readonly world: CreatorWorld,
    private readonly ids: RuntimeIds,
  ) {
    this.seed();
  }

  private seed(): void {
    const w = this.world;
    const count = w.rand.int(2, SEEDS.length, Kind.automatedMessage, 0);
    SEEDS.slice(0, count).forEach(({ content, ...seed }, k) => {
      const createdAt = w.anchorMs - (40 - 9 * k) * DAY_MS;
      const attachments =
        k === 0
          ? [
              {
                contentId: encodeId(createdAt, w.namespace, Kind.accountMedia),
                contentType: ATTACHMENT_ACCOUNT_MEDIA,
                pos: 0,
              },
            ]
          : [];
      const id = encodeId(createdAt, w.namespace, Kind.automatedMessage);
      this.rules.set(id, {
        id,
        accountId: w.accountId,
        ...seed,
        messageTemplate: { type: 1, content, attachments, senderId: w.accountId },
      });
    });
  }

  /** Every rule, oldest first. */
  list(): AutomatedMessage[] {
    return [...this.rules.values()];
  }

  /** The rule that already holds a trigger, which a second one may not share (all but `disabled`). */
  holder(triggerType: number): AutomatedMessage | undefined {
    if (triggerType === AUTOMATION_TRIGGER_CODES.disabled) return undefined;
    return this.list().find((rule) => rule.triggerType === triggerType);
  }

  create(rule: NewAutomation): AutomatedMessage {
    const created = { id: this.ids.next(Kind.automatedMessage), accountId: this.world.accountId, ...rule };
    this.rules.set(created.id, created);
    return created;
  }

  /** Removes a rule; answers it, or undefined when there is none with this id. */
  delete(id: string): AutomatedMessage | undefined {
    const rule = this.rules.get(id);
    this.rules.delete(id);
    return rule;
  }
}

/** Keyed by the creator's state, so a reset (a new state) seeds the rules again. */
const byState = new WeakMap<CreatorState, Automations>();

export function automationsOf(state: CreatorState, ids: RuntimeIds): Automations {
  let automations = byState.get(state);
  if (!automations) {
    automations = new Automations(state.world, ids);
    byState.set(state, automations);
  }
  return automations;
}
