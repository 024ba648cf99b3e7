import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eventId, signatureHeader, verifyWebhook, webhookHeaders } from '../src/index';

describe('webhook signatures (Standard Webhooks)', () => {
  it('are verified by the receiver’s check: the published example passes, any change fails', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const headers = {
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    };
    const body = '{"test": 2432232314}';
    const at = 1614265330 * 1000;
    expect(verifyWebhook(headers, body, secret, at)).toBe(true);
    // Beside a rotated-out secret's signature, in either order.
    const both = { ...headers, 'webhook-signature': `v1,AAAA ${headers['webhook-signature']}` };
    expect(verifyWebhook(both, body, secret, at)).toBe(true);
    expect(verifyWebhook(headers, '{"test": 2432232315}', secret, at)).toBe(false);
    expect(verifyWebhook({ ...headers, 'webhook-id': 'msg_other' }, body, secret, at)).toBe(false);
    expect(verifyWebhook(headers, body, 'whsec_c2VjcmV0', at)).toBe(false);
    expect(verifyWebhook(headers, body, secret, at + 301_000)).toBe(false);
    expect(verifyWebhook({ ...headers, 'webhook-signature': undefined }, body, secret, at)).toBe(false);
  });

  it('match the scheme’s published example', () => {
    // The example of the Standard Webhooks specification (and Svix's documentation).
    const header = signatureHeader(
      ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
    );
    expect(header).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('sign "<id>.<timestamp>.<body>" with each live secret, space-separated, current first', () => {
    const secrets = [
      `whsec_${Buffer.alloc(32, 1).toString('base64')}`,
      `whsec_${Buffer.alloc(24, 2).toString('base64')}`,
    ];
    const body = '{"id":"evt_x","event":"tips.received"}';
    const headers = webhookHeaders(secrets, 'evt_x', body, 1_700_000_000_999);
    expect(headers['webhook-id']).toBe('evt_x');
    expect(headers['webhook-timestamp']).toBe('1700000000');
    const expected = [Buffer.alloc(32, 1), Buffer.alloc(24, 2)].map(
      (key) => `v1,${createHmac('sha256', key).update(`evt_x.1700000000.${body}`).digest('base64')}`,
    );
    expect(headers['webhook-signature']).toBe(expected.join(' '));
  });
});

describe('eventId', () => {
  it('is deterministic from the identity parts, and tells different parts apart', () => {
    expect(eventId(['acct_1', 'subscriptions.new', '123', 3])).toBe(
      eventId(['acct_1', 'subscriptions.new', '123', 3]),
    );
    expect(eventId(['acct_1', 'subscriptions.new', '123', 3])).not.toBe(
      eventId(['acct_1', 'subscriptions.new', '123', 2]),
    );
    expect(eventId(['a|b', 'c'])).not.toBe(eventId(['a', 'b|c']));
    expect(eventId(['x'])).toMatch(/^evt_[A-Za-z0-9_-]{32}$/);
  });
});
