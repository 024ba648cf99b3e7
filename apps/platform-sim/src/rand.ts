/**
 * Deterministic, stateless randomness. Every seeded value is a pure function of
 * (seed, namespace, kind, index, salt), so any record can be rebuilt on demand without storing
 * the world, and the same seed always yields the same world.
 */

function fmix32(input: number): number {
  let h = input | 0;
  h = Math.imul(h ^ (h >>> 16), 0x85eb_ca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2_ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

export class Rand {
  private readonly base: number;

  constructor(seed: number, namespace: number) {
    this.base = fmix32(fmix32(seed ^ 0x9e37_79b9) ^ Math.imul(namespace + 1, 0x27d4_eb2f));
  }

  /** Uniform 32-bit unsigned integer. */
  u32(kind: number, index: number, salt = 0): number {
    let h = fmix32(this.base ^ Math.imul(kind + 1, 0x632b_e5ab));
    h = fmix32(h ^ Math.imul(index + 1, 0x1656_67b1));
    return fmix32(h ^ Math.imul(salt + 1, 0x2545_f491));
  }

  /** Uniform in [0, 1). */
  float(kind: number, index: number, salt = 0): number {
    return this.u32(kind, index, salt) / 4_294_967_296;
  }

  /** Uniform integer in [min, max] (inclusive). */
  int(min: number, max: number, kind: number, index: number, salt = 0): number {
    return min + Math.floor(this.float(kind, index, salt) * (max - min + 1));
  }

  chance(probability: number, kind: number, index: number, salt = 0): boolean {
    return this.float(kind, index, salt) < probability;
  }

  pick<T>(items: readonly T[], kind: number, index: number, salt = 0): T {
    const item = items[this.u32(kind, index, salt) % items.length];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }
}

/**
 * A strictly decreasing timeline: item i happens at `start - i*unit - jitter(i)` with
 * 0 <= jitter < unit, so item times are unique and the index of a time is `floor((start-t)/unit)`.
 */
export class Timeline {
  constructor(
    private readonly rand: Rand,
    private readonly kind: number,
    readonly start: number,
    readonly unit: number,
  ) {}

  at(index: number): number {
    return this.start - index * this.unit - (this.rand.u32(this.kind, index, 7) % this.unit);
  }

  /** Index of an item time, or -1 when no item has exactly that time. */
  indexOf(ms: number): number {
    const index = Math.floor((this.start - ms) / this.unit);
    return index >= 0 && this.at(index) === ms ? index : -1;
  }

  /** Number of items (among the first `count`) strictly newer than `ms`. */
  countNewerThan(ms: number, count: number): number {
    let lo = 0;
    let hi = count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at(mid) > ms) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** Largest value <= n that is coprime to n, from a preferred stride, for index permutations. */
export function coprimeStride(n: number, preferred: number): number {
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  let stride = Math.max(1, preferred % Math.max(1, n));
  while (n > 1 && gcd(stride, n) !== 1) stride += 1;
  return stride;
}

/** x such that a*x = 1 (mod m), for a coprime to m: inverts the index permutations. */
export function modularInverse(a: number, m: number): number {
  let [oldR, r] = [a, m];
  let [oldS, s] = [1, 0];
  while (r !== 0) {
    const q = Math.floor(oldR / r);
    [oldR, r] = [r, oldR - q * r];
    [oldS, s] = [s, oldS - q * s];
  }
  return ((oldS % m) + m) % m;
}

export const ADJECTIVES = [
  'quiet',
  'bright',
  'lucky',
  'sunny',
  'velvet',
  'golden',
  'misty',
  'wild',
  'gentle',
  'brave',
  'cosmic',
  'silver',
  'rusty',
  'happy',
  'sleepy',
  'swift',
  'clever',
  'amber',
  'crimson',
  'lunar',
  'polar',
  'urban',
  'salty',
  'cozy',
  'neon',
  'mellow',
  'stormy',
  'tiny',
  'royal',
  'frosty',
] as const;

export const NOUNS = [
  'fox',
  'otter',
  'falcon',
  'maple',
  'river',
  'comet',
  'panda',
  'tiger',
  'willow',
  'harbor',
  'raven',
  'cedar',
  'pixel',
  'lotus',
  'badger',
  'echo',
  'orchid',
  'canyon',
  'koala',
  'meadow',
  'sparrow',
  'nebula',
  'pepper',
  'summit',
  'lynx',
  'coral',
  'breeze',
  'ember',
  'moose',
  'atlas',
] as const;

export const CITIES = [
  'Austin, TX',
  'Berlin',
  'Toronto',
  'Lisbon',
  'Melbourne',
  'Denver, CO',
  'Manchester',
  'Seoul',
  'Cape Town',
  'Dublin',
  'Portland, OR',
  'Madrid',
  '',
] as const;

export const MESSAGE_LINES = [
  'hey! just saw your new set, love it',
  'how was your weekend?',
  'any chance of a custom video this month?',
  'thank you for the birthday message!!',
  'when is the next live stream?',
  'you looked amazing in the last post',
  'sent you a tip, hope you like it',
  'can I get that bundle you mentioned?',
  'good morning :)',
  'what camera do you use?',
  'I renewed for another month',
  'that behind the scenes clip was great',
] as const;

export const CREATOR_LINES = [
  'thanks so much for the support!',
  'new set just dropped, check your inbox',
  'here is something special just for you',
  'exclusive clip, unlock it while it lasts',
  'glad you liked it!',
  'stream is on Friday at 8pm',
  'bundle deal this week only',
  'hope you have a great day',
] as const;

export function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
