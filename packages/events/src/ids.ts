import { createHash, randomBytes } from 'node:crypto';

const hash = (text: string) => createHash('sha256').update(text).digest('base64url');

/**
 * An event's id from the platform's identity of the occurrence (account, event kind, platform object
 * id, and its state where the platform sends one object twice): the same parts, the same id, so the
 * duplicates of reconnects and backfills collapse. Parts are joined unambiguously (length-prefixed).
 */
export function eventId(parts: readonly (string | number)[]): string {
  if (parts.length === 0) throw new Error('eventId needs at least one identity part');
  const joined = parts.map((part) => `${String(part).length}:${part}`).join('|');
  return `evt_${hash(joined).slice(0, 32)}`;
}

/** One delivery is one (endpoint, event): its id is derived, so a repeated fan-out is one job. */
export const deliveryId = (endpointId: string, id: string) =>
  `dlv_${hash(`${endpointId}|${id}`).slice(0, 24)}`;

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export function endpointId(): string {
  let out = 'wh_';
  for (const byte of randomBytes(22)) out += ALPHABET[byte % 62];
  return out;
}

/** `whsec_` + base64 of 32 random bytes (Standard Webhooks' secret form). */
export const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

export const isEndpointId = (id: string) => /^wh_[0-9A-Za-z]{1,64}$/.test(id);
export const isDeliveryId = (id: string) => /^dlv_[0-9A-Za-z_-]{1,64}$/.test(id);
export const isEventId = (id: string) => /^evt_[0-9A-Za-z_-]{1,64}$/.test(id);
