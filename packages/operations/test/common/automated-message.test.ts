import { describe, expect, it } from 'vitest';
import { checkTriggerFields, triggerMetadata } from '../../src/automated-messages-create/operation';
import {
  AUTOMATION_TRIGGERS,
  AutomatedMessage,
  triggerName,
  UNKNOWN_TRIGGER,
} from '../../src/common/automated-message';

describe('the trigger table (GUESS but 3, mirrored by the sandbox’s AUTOMATION_TRIGGER_CODES)', () => {
  it('maps the seven contract names onto these codes, new_subscriber on the one seen (3)', () => {
    const byCode = Object.entries(AUTOMATION_TRIGGERS).map(([name, code]) => `${code} ${name}`);
    expect(byCode.sort().join(', ')).toBe(
      '0 disabled, 1 new_follower, 3 new_subscriber, 4 subscriber_renew, 5 new_gift_link_subscriber, 6 new_gift_link_subscriber_renew, 7 new_tip',
    );
  });

  it('names every code back, and a code it does not hold unknown', () => {
    for (const [name, code] of Object.entries(AUTOMATION_TRIGGERS)) expect(triggerName(code)).toBe(name);
    expect(triggerName(2)).toBe(UNKNOWN_TRIGGER);
    expect(triggerName(undefined)).toBe('disabled');
  });
});

describe('triggerMetadata: the trigger’s parameters upstream', () => {
  const base = { content: 'x' };
  it('carries the tip in mills (round(dollars × 1000)) with the keywords, the streak as sent', () => {
    expect(
      JSON.parse(triggerMetadata({ ...base, triggerType: 'new_tip', tipAmount: 9.99, keywords: ['a'] })),
    ).toEqual({
      tipAmount: 9990,
      keywords: ['a'],
    });
    expect(JSON.parse(triggerMetadata({ ...base, triggerType: 'new_tip', tipAmount: 12.3456 }))).toEqual({
      tipAmount: 12346,
    });
    expect(triggerMetadata({ ...base, triggerType: 'subscriber_renew', subscriptionStreak: 3 })).toBe(
      '{"subscriptionStreak":3}',
    );
    expect(triggerMetadata({ ...base, triggerType: 'new_follower' })).toBe('{}');
  });

  it('refuses a field with a trigger it does not apply to, naming it', () => {
    expect(checkTriggerFields({ ...base, triggerType: 'new_follower', subscriptionStreak: 2 })).toContain(
      'subscriptionStreak',
    );
    expect(checkTriggerFields({ ...base, triggerType: 'subscriber_renew', tipAmount: 2 })).toContain(
      'tipAmount',
    );
    expect(checkTriggerFields({ ...base, triggerType: 'disabled', keywords: [] })).toContain('keywords');
    expect(
      checkTriggerFields({ ...base, triggerType: 'new_gift_link_subscriber_renew', subscriptionStreak: 2 }),
    ).toBe(undefined);
    expect(checkTriggerFields({ ...base, triggerType: 'new_tip', tipAmount: 1, keywords: ['x'] })).toBe(
      undefined,
    );
  });
});

describe('AutomatedMessage.from', () => {
  it('repeats the request vocabulary (name, dollars, keywords) beside the platform fields', () => {
    const template = {
      type: 1,
      content: 'thanks!',
      attachments: [{ contentId: '9', contentType: 1, pos: 0 }],
      senderId: '5',
    };
    const record = AutomatedMessage.from({
      id: '11',
      accountId: '5',
      triggerType: 7,
      triggerMetadata: '{"tipAmount":12345,"keywords":["custom"]}',
      delay: 60,
      cooldown: 0,
      // Some answers may carry the template as JSON text.
      messageTemplate: JSON.stringify(template),
    });
    expect(record).toEqual({
      id: '11',
      accountId: '5',
      triggerType: 'new_tip',
      platformTriggerType: 7,
      delay: 60,
      cooldown: 0,
      subscriptionStreak: null,
      tipAmount: 12.345,
      keywords: ['custom'],
      content: 'thanks!',
      attachments: [{ contentId: '9', contentType: 1, pos: 0, messageId: null }],
      messageTemplate: {
        ...template,
        attachments: [{ contentId: '9', contentType: 1, pos: 0, messageId: null }],
      },
      triggerMetadata: '{"tipAmount":12345,"keywords":["custom"]}',
    });
  });

  it('reads an unmapped code as unknown and bad metadata as none', () => {
    const record = AutomatedMessage.from({ id: '1', triggerType: 2, triggerMetadata: 'not json' });
    expect(record).toMatchObject({
      triggerType: UNKNOWN_TRIGGER,
      platformTriggerType: 2,
      subscriptionStreak: null,
      tipAmount: null,
      keywords: [],
      content: '',
      attachments: [],
      triggerMetadata: 'not json',
    });
  });
});
