import { createHmac, timingSafeEqual } from 'node:crypto';

/** The key bytes of a `whsec_<base64>` secret. */
function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

/**
 * Standard Webhooks' `webhook-signature`: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` per
 * live secret, space-separated (the current one first, then one being rotated out).
 */
export function signatureHeader(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: string,
): string {
  const content = `${id}.${timestamp}.${body}`;
  return secrets
    .map((secret) => `v1,${createHmac('sha256', secretKey(secret)).update(content).digest('base64')}`)
    .join(' ');
}

/** The three headers of one delivery, besides `content-type`. */
export function webhookHeaders(secrets: readonly string[], id: string, body: string, now = Date.now()) {
  const timestamp = Math.floor(now / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(secrets, id, timestamp, body),
  };
}

/** How far a delivery's timestamp may be from the receiver's clock (Standard Webhooks: 5 min). */
export const SIGNATURE_TOLERANCE_S = 300;

/**
 * The receiver's check: the delivery is signed with `secret` (one of the `v1,` signatures matches,
 * compared in constant time) and its timestamp is within the tolerance.
 */
export function verifyWebhook(
  headers: Record<string, string | string[] | undefined>,
  body: string,
  secret: string,
  now = Date.now(),
): boolean {
  const one = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const id = one('webhook-id');
  const timestamp = Number(one('webhook-timestamp'));
  const signatures = one('webhook-signature');
  if (!id || !signatures || !Number.isInteger(timestamp)) return false;
  if (Math.abs(now / 1000 - timestamp) > SIGNATURE_TOLERANCE_S) return false;
  const expected = Buffer.from(signatureHeader([secret], id, timestamp, body).slice('v1,'.length), 'base64');
  return signatures.split(' ').some((part) => {
    const given = Buffer.from(part.slice(part.indexOf(',') + 1), 'base64');
    return part.startsWith('v1,') && given.length === expected.length && timingSafeEqual(given, expected);
  });
}
