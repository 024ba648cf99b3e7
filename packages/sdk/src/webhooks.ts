/**
 * Checks a webhook delivery as Standard Webhooks signs it (README, "Webhooks and events"):
 * `webhook-signature` holds `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`
 * per live secret, space-separated; the key is the base64 after `whsec_`. WebCrypto only, so it
 * runs in Node, browsers, and edge runtimes alike.
 */
import { WebhookVerificationError } from './errors.js';
import type { OperationAnswer } from './types.js';

/** How far a delivery's timestamp may be from this clock, in seconds (Standard Webhooks: 5 min). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

/** One event, as `GET /events` lists it and a webhook delivers it. */
export type WebhookEvent = OperationAnswer<'eventsList'>['data']['events'][number];

/** A `Headers`, or a plain object of them (Node's `IncomingHttpHeaders`, any case). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookInput {
  /** The body exactly as received, before any parsing: the signature covers its bytes. */
  body: string | Uint8Array | ArrayBuffer;
  headers: WebhookHeaders;
  /** The endpoint's `whsec_…` secret; during a rotation, the new one and the old one. */
  secret: string | readonly string[];
  /** @defaultValue WEBHOOK_TOLERANCE_SECONDS */
  toleranceSeconds?: number;
  /** The receiver's clock, Unix ms. @defaultValue Date.now() */
  now?: number;
}

/**
 * The delivery's event, once its signature matches one of the secrets and its timestamp is within
 * the tolerance (an old delivery replayed by someone who recorded it is refused); otherwise throws
 * `WebhookVerificationError` with the reason. Deliveries may arrive twice: dedupe by `id`.
 */
export async function verifyWebhook(input: VerifyWebhookInput): Promise<WebhookEvent> {
  const id = header(input.headers, 'webhook-id');
  const timestamp = header(input.headers, 'webhook-timestamp');
  const signatures = header(input.headers, 'webhook-signature');
  if (!id || !timestamp || !signatures)
    throw new WebhookVerificationError(
      'missing-headers',
      'the delivery lacks webhook-id, webhook-timestamp or webhook-signature',
    );
  const seconds = /^\d{1,15}$/.test(timestamp) ? Number(timestamp) : Number.NaN;
  const tolerance = input.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS;
  if (!(Math.abs((input.now ?? Date.now()) / 1000 - seconds) <= tolerance))
    throw new WebhookVerificationError(
      'timestamp',
      `the delivery's timestamp is not within ${tolerance} s of this clock`,
    );
  const body = bytesOf(input.body);
  const signed = concat(new TextEncoder().encode(`${id}.${timestamp}.`), body);
  const secrets = typeof input.secret === 'string' ? [input.secret] : input.secret;
  if (!(await signedByAny(signed, signatures, secrets)))
    throw new WebhookVerificationError('signature', 'no signature of the delivery matches the secret');
  try {
    return JSON.parse(new TextDecoder().decode(body)) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('body', 'the signed body is not JSON');
  }
}

/** `verifyWebhook` as a yes or no. */
export async function isValidWebhook(input: VerifyWebhookInput): Promise<boolean> {
  return verifyWebhook(input).then(
    () => true,
    (error: unknown) => {
      if (error instanceof WebhookVerificationError) return false;
      throw error;
    },
  );
}

/** Whether one `v1,` signature of the header is the HMAC of `signed` under one of the secrets. */
async function signedByAny(
  signed: Uint8Array<ArrayBuffer>,
  header: string,
  secrets: readonly string[],
): Promise<boolean> {
  const given = header
    .split(' ')
    .filter((part) => part.startsWith('v1,'))
    .map((part) => fromBase64(part.slice('v1,'.length)))
    .filter((bytes): bytes is Uint8Array<ArrayBuffer> => bytes !== undefined);
  for (const secret of secrets) {
    const raw = fromBase64(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret);
    if (!raw || raw.length === 0) throw new TypeError('a webhook secret is whsec_ and base64');
    const key = await globalThis.crypto.subtle.importKey(
      'raw',
      raw,
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['verify'],
    );
    // subtle.verify compares in constant time: no timing tells how much of a forgery was right.
    for (const signature of given)
      if (await globalThis.crypto.subtle.verify('HMAC', key, signature, signed)) return true;
  }
  return false;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof Headers !== 'undefined' && headers instanceof Headers) return headers.get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

function bytesOf(body: string | Uint8Array | ArrayBuffer): Uint8Array<ArrayBuffer> {
  if (typeof body === 'string') return new TextEncoder().encode(body);
  return new Uint8Array(body instanceof ArrayBuffer ? body.slice(0) : body.slice().buffer);
}

function concat(first: Uint8Array, second: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(first.length + second.length);
  out.set(first);
  out.set(second, first.length);
  return out;
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  try {
    return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  } catch {
    return undefined;
  }
}
