/**
 * Snowflake ids, the platform's id format (decimal strings of a 63-bit integer).
 *
 * Layout used by the sandbox: `(ms - SNOWFLAKE_EPOCH_MS) << 22 | namespace << 8 | kind`.
 * - namespace 0: global profiles; 1..RUNTIME_NAMESPACE_BASE-1: one per sandbox creator (index + 1);
 *   RUNTIME_NAMESPACE_BASE and above: ids minted at run time (the namespace bits carry a sequence).
 * - kind: what the id names (a fan, a message, ...).
 * Because (namespace, kind, ms) is unique for every seeded record, an id alone tells the sandbox
 * which creator's world and which virtual collection it belongs to, so lookups need no index.
 */

export const SNOWFLAKE_EPOCH_MS = 1_600_000_000_000;
export const GLOBAL_NAMESPACE = 0;
export const RUNTIME_NAMESPACE_BASE = 12_288;

export const Kind = {
  account: 1,
  fan: 2,
  profile: 3,
  subscription: 4,
  subscriptionHistory: 5,
  renewCorrelation: 6,
  paymentMethod: 7,
  transaction: 8,
  transactionCorrelation: 9,
  wallet: 10,
  group: 11,
  message: 12,
  media: 13,
  mediaVariant: 14,
  accountMedia: 15,
  mediaOffer: 16,
  mediaOfferItem: 17,
  bundle: 18,
  list: 19,
  listItem: 20,
  payoutMethod: 21,
  payoutProvider: 22,
  album: 23,
  trackingLink: 24,
  wall: 25,
  tier: 26,
  plan: 27,
  promo: 28,
  broadcast: 29,
  broadcastGroup: 30,
  post: 31,
  reaction: 32,
  session: 33,
  device: 34,
  twofa: 35,
  replyRule: 36,
  badge: 37,
  avatar: 38,
  banner: 39,
  stepUp: 40,
  giftCode: 41,
  variantPreview: 42,
  tip: 43,
  broadcastHistory: 50,
  automatedMessage: 60,
  notification: 70,
  follow: 71,
  order: 72,
  fanLike: 73,
  websocketSession: 74,
  /** An item of a vault album (`/media/vaultnew` albumMedia[]). */
  albumItem: 90,
  /** The account media of the creator's profile that profile statistics rank. */
  profileMedia: 91,
  /** A content tag (the platform's, not one creator's). */
  tag: 92,
} as const;
export type Kind = (typeof Kind)[keyof typeof Kind];

const ID_PATTERN = /^\d{1,19}$/;
const MAX_ID = (1n << 63n) - 1n;

export function encodeId(ms: number, namespace: number, kind: number): string {
  return ((BigInt(ms - SNOWFLAKE_EPOCH_MS) << 22n) | BigInt((namespace << 8) | kind)).toString();
}

export interface DecodedId {
  ms: number;
  namespace: number;
  kind: number;
}

export function decodeId(id: string): DecodedId | null {
  if (!ID_PATTERN.test(id)) return null;
  const value = BigInt(id);
  if (value > MAX_ID) return null;
  const low = Number(value & 0x3f_ffffn);
  return { ms: Number(value >> 22n) + SNOWFLAKE_EPOCH_MS, namespace: low >> 8, kind: low & 0xff };
}

/** Numeric order of two decimal id strings without BigInt (no leading zeros in snowflakes). */
export function compareIds(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Mints ids for objects created at run time (sessions, lists, posts, ...). Monotonic: a later id
 * always sorts after an earlier one and after every seeded id (seeded records predate start-up).
 */
export class RuntimeIds {
  private lastMs = 0;
  private sequence = 0;

  next(kind: Kind): string {
    let ms = Date.now();
    if (ms <= this.lastMs) {
      ms = this.lastMs;
      this.sequence += 1;
      if (this.sequence >= 4096) {
        ms += 1;
        this.sequence = 0;
      }
    } else {
      this.sequence = 0;
    }
    this.lastMs = ms;
    return encodeId(ms, RUNTIME_NAMESPACE_BASE + this.sequence, kind);
  }
}
