import { randomBytes } from 'node:crypto';
import { webhookHeaders } from '@cg/events';
import { describe, expect, it } from 'vitest';
import { WebhookVerificationError } from '../src/errors';
import { isValidWebhook, verifyWebhook } from '../src/webhooks';

// The gateway's own signer (packages/events) signs; the SDK's WebCrypto check must agree with it.
const secret = () => `whsec_${randomBytes(24).toString('base64')}`;
const event = {
  id: 'evt_1',
  event: 'messages.received',
  accountId: 'acct_1',
  timestamp: '2026-01-01T00:00:00.000Z',
  data: { content: 'héllo ✓' },
};
const body = JSON.stringify(event);

/** The reason `verifyWebhook` gives for refusing, or 'accepted'. */
async function outcome(input: Parameters<typeof verifyWebhook>[0]): Promise<string> {
  try {
    await verifyWebhook(input);
    return 'accepted';
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
}

describe('verifyWebhook', () => {
  it('accepts what the gateway signs and answers the event, from a string, bytes or Headers', async () => {
    const key = secret();
    const headers = webhookHeaders([key], 'evt_1', body);
    expect(await verifyWebhook({ body, headers, secret: key })).toEqual(event);
    const bytes = new TextEncoder().encode(body);
    expect(await verifyWebhook({ body: bytes, headers: new Headers(headers), secret: key })).toEqual(event);
    // Node's IncomingHttpHeaders may hold arrays; names in any case.
    const shouting = Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [name.toUpperCase(), [value]]),
    );
    expect(await isValidWebhook({ body: bytes.buffer, headers: shouting, secret: key })).toBe(true);
  });

  it('accepts either secret during a rotation, whichever of the two signatures matches', async () => {
    const [current, old] = [secret(), secret()];
    const headers = webhookHeaders([current, old], 'evt_1', body);
    expect(await outcome({ body, headers, secret: old })).toBe('accepted');
    expect(await outcome({ body, headers, secret: current })).toBe('accepted');
    expect(await outcome({ body, headers, secret: [secret(), old] })).toBe('accepted');
  });

  it('refuses a tampered body, another id, a wrong secret, an old or future timestamp, missing headers', async () => {
    const key = secret();
    const now = Date.now();
    const headers = webhookHeaders([key], 'evt_1', body, now);
    expect(await outcome({ body: body.replace('héllo', 'hello'), headers, secret: key })).toBe('signature');
    expect(await outcome({ body, headers: { ...headers, 'webhook-id': 'evt_2' }, secret: key })).toBe(
      'signature',
    );
    expect(await outcome({ body, headers, secret: secret() })).toBe('signature');
    // Signed six minutes ago (a recorded delivery replayed): outside the 5-minute tolerance.
    const old = webhookHeaders([key], 'evt_1', body, now - 360_000);
    expect(await outcome({ body, headers: old, secret: key })).toBe('timestamp');
    expect(await outcome({ body, headers: old, secret: key, toleranceSeconds: 400 })).toBe('accepted');
    const ahead = webhookHeaders([key], 'evt_1', body, now + 360_000);
    expect(await outcome({ body, headers: ahead, secret: key })).toBe('timestamp');
    const { 'webhook-signature': _, ...unsigned } = headers;
    expect(await outcome({ body, headers: unsigned, secret: key })).toBe('missing-headers');
    expect(await outcome({ body, headers: { ...headers, 'webhook-signature': 'v1,!!!' }, secret: key })).toBe(
      'signature',
    );
    expect(await outcome({ body, headers: { ...headers, 'webhook-timestamp': '12e3' }, secret: key })).toBe(
      'timestamp',
    );
  });

  it('refuses a signature of another version, and a signed body that is not JSON', async () => {
    const key = secret();
    const headers = webhookHeaders([key], 'evt_1', body);
    const v2 = { ...headers, 'webhook-signature': headers['webhook-signature'].replace('v1,', 'v2,') };
    expect(await outcome({ body, headers: v2, secret: key })).toBe('signature');
    const text = 'not json';
    expect(await outcome({ body: text, headers: webhookHeaders([key], 'evt_1', text), secret: key })).toBe(
      'body',
    );
  });
});
