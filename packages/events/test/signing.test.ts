import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { safeLookup } from '../src/destination';
import {
  eventId,
  isPrivateAddress,
  signatureHeader,
  urlProblem,
  verifyWebhook,
  webhookHeaders,
} from '../src/index';
import { postWebhook } from '../src/post';

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

describe('webhook destinations', () => {
  it('refuses private, loopback, link-local and reserved addresses', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '0.0.0.0',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '100.64.0.1',
    ])
      expect(isPrivateAddress(address), address).toBe(true);
    for (const address of ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946', '8.8.8.8'])
      expect(isPrivateAddress(address), address).toBe(false);
  });

  it('takes https public URLs only, unless private destinations are allowed', () => {
    expect(urlProblem('https://hooks.example.com/in', false)).toBeUndefined();
    expect(urlProblem('http://hooks.example.com/in', false)).toMatch(/https/);
    expect(urlProblem('https://127.0.0.1/in', false)).toMatch(/private/);
    expect(urlProblem('https://[::1]:8443/in', false)).toMatch(/private/);
    expect(urlProblem('https://169.254.169.254/latest', false)).toMatch(/private/);
    expect(urlProblem('https://localhost/in', false)).toMatch(/private/);
    expect(urlProblem('https://user:pw@hooks.example.com/', false)).toMatch(/credentials/);
    expect(urlProblem('not a url', false)).toMatch(/absolute/);
    expect(urlProblem('http://127.0.0.1:9999/in', true)).toBeUndefined();
    expect(urlProblem('ftp://127.0.0.1/in', true)).toMatch(/https/);
  });

  it('refuses a name that resolves to a private address, after DNS', async () => {
    const error = await new Promise<Error | null>((resolve) =>
      safeLookup('localhost', {}, (e) => resolve(e)),
    );
    expect(error?.message).toMatch(/private address/);
  });

  it('sends nothing to a private destination when they are not allowed', async () => {
    const result = await postWebhook(
      'http://127.0.0.1:9/in',
      '{}',
      {},
      { timeoutMs: 1_000, allowPrivate: false },
    );
    expect(result.status).toBeNull();
    expect(result.error).toMatch(/https/);
    const literal = await postWebhook(
      'https://127.0.0.1:9/in',
      '{}',
      {},
      { timeoutMs: 1_000, allowPrivate: false },
    );
    expect(literal.error).toMatch(/private/);
  });
});
