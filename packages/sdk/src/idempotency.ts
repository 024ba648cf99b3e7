/**
 * A new `Idempotency-Key`: one per logical write, reused by every retry of that write, so the
 * gateway runs it once and answers the retries with the first request's result. Keep it with the
 * thing it writes (a row of yours, a queue message) when a retry may come from another process.
 *
 * The gateway takes 1 to 255 visible ASCII characters, per tenant; `prefix` (default `sdk`) names
 * what the key is for in your logs and must be of those characters too.
 */
export function idempotencyKey(prefix = 'sdk'): string {
  if (!/^[\x21-\x7E]{1,200}$/.test(prefix))
    throw new TypeError('an Idempotency-Key prefix is 1 to 200 visible ASCII characters');
  // WebCrypto's UUID: in every browser and in Node 19+, no import needed.
  return `${prefix}-${globalThis.crypto.randomUUID()}`;
}
