import { invalidField, notAllowed, notFound } from '../errors';
import { type Body, bodyNumber, bodyObject, requiredBodyId } from '../params';
import {
  AUTOMATION_TRIGGER_CODES,
  type Automations,
  type AutomationTemplate,
  automationsOf,
  KNOWN_TRIGGER_CODES,
  RENEW_TRIGGER_CODES,
} from '../world/automations';
import { messageBody } from './message-body';
import type { ApiContext, ApiRoute } from './types';

function automations(ctx: ApiContext): Automations {
  return automationsOf(ctx.core.world.state(ctx.creator), ctx.core.world.ids);
}

/** Every rule of the creator: a bare array, oldest first. */
function listAutomatedMessages(ctx: ApiContext): unknown {
  return automations(ctx).list();
}

const isWhole = (value: unknown, min: number): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= min;

/** Which metadata keys a trigger takes, and what each must hold (GUESS keys). */
function metadataKeyFits(key: string, value: unknown, triggerType: number): boolean {
  const tip = triggerType === AUTOMATION_TRIGGER_CODES.new_tip;
  if (key === 'subscriptionStreak') return RENEW_TRIGGER_CODES.includes(triggerType) && isWhole(value, 1);
  // The tip is in mills, as every platform price.
  if (key === 'tipAmount') return tip && isWhole(value, 1);
  if (key === 'keywords')
    return (
      tip && Array.isArray(value) && value.every((word) => typeof word === 'string' && word.trim() !== '')
    );
  return false;
}

/** `triggerMetadata`: JSON text of an object holding only the keys its trigger takes; `{}` when left out. */
function triggerMetadataOf(raw: unknown, triggerType: number): string {
  const text = raw ?? '{}';
  if (typeof text !== 'string') throw invalidField('triggerMetadata');
  let metadata: unknown;
  try {
    metadata = JSON.parse(text);
  } catch {
    throw invalidField('triggerMetadata');
  }
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata))
    throw invalidField('triggerMetadata');
  for (const [key, value] of Object.entries(metadata))
    if (!metadataKeyFits(key, value, triggerType)) throw invalidField('triggerMetadata');
  return text;
}

function seconds(body: Body, name: string): number {
  const value = bodyNumber(body, name, 0);
  if (!isWhole(value, 0)) throw invalidField(name);
  return value;
}

/** `messageTemplate: {type: 1, content, attachments, senderId?}`; its offers must be the creator's. */
function templateOf(ctx: ApiContext, raw: unknown): AutomationTemplate {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw invalidField('messageTemplate');
  const template = raw as Body;
  if ((template.type ?? 1) !== 1) throw invalidField('type');
  const senderId = ctx.core.world.creator(ctx.creator).accountId;
  if ((template.senderId ?? senderId) !== senderId) throw invalidField('senderId');
  return { type: 1, ...messageBody(ctx, template), senderId };
}

/**
 * GUESS endpoint (docs/upstream-decisions.md, automated messages): `{triggerType, triggerMetadata,
 * delay, cooldown, messageTemplate}` → the new rule. A second rule for a trigger that already has
 * one (any but 0, disabled) is refused as a forbidden action: 403 code 20.
 */
function createAutomatedMessage(ctx: ApiContext): unknown {
  const body = bodyObject(ctx.body);
  const { triggerType } = body;
  if (typeof triggerType !== 'number' || !KNOWN_TRIGGER_CODES.includes(triggerType))
    throw invalidField('triggerType');
  const rule = {
    triggerType,
    triggerMetadata: triggerMetadataOf(body.triggerMetadata, triggerType),
    delay: seconds(body, 'delay'),
    cooldown: seconds(body, 'cooldown'),
    messageTemplate: templateOf(ctx, body.messageTemplate),
  };
  const rules = automations(ctx);
  if (rules.holder(triggerType)) throw notAllowed('an automated message for this trigger already exists');
  return rules.create(rule);
}

/** GUESS endpoint (docs/upstream-decisions.md): `{id}` → the deleted rule. Unknown: 404. */
function deleteAutomatedMessage(ctx: ApiContext): unknown {
  const id = requiredBodyId(bodyObject(ctx.body), 'id');
  const deleted = automations(ctx).delete(id);
  if (!deleted) throw notFound('automated message');
  return deleted;
}

export const automationRoutes: ApiRoute[] = [
  {
    method: 'GET',
    path: '/message/automated',
    summary:
      "The creator's automated-message rules, a bare array, oldest first: `{id, accountId, triggerType, triggerMetadata` (JSON text)`, delay, cooldown` (seconds)`, messageTemplate: {type, content, attachments, senderId}}`.",
    auth: 'session',
    handler: listAutomatedMessages,
  },
  {
    method: 'POST',
    path: '/message/automated',

    summary:
      "**GUESS.** `{triggerType, triggerMetadata, delay, cooldown, messageTemplate: {type: 1, content, attachments, senderId?}}` → the new rule. `triggerType` 0 disabled, 1 new follower, 2 (no gateway name), 3 new subscriber, 4 renewal, 5 gift-link subscriber, 6 gift-link renewal, 7 tip (else 400 code 10); `triggerMetadata` JSON text holding only `subscriptionStreak` (integer ≥ 1, codes 4 and 6) or `tipAmount` (mills, integer > 0) and `keywords` (code 7), else 400 code 10; `delay`/`cooldown` whole seconds ≥ 0 (default 0); attachments name the creator's offers (unknown: 404 `media offer not found`). A second rule for a trigger other than 0: 403 code 20.",
    auth: 'session',
    write: true,
    handler: createAutomatedMessage,
  },
  {
    method: 'POST',
    path: '/message/automated/delete',

    summary:
      '**GUESS.** `{id}` → the deleted rule; later lists leave it out. Unknown or already deleted: 404 `automated message not found`.',
    auth: 'session',
    write: true,
    handler: deleteAutomatedMessage,
  },
];
