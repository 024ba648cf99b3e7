import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { ClientTimestamp, clientCheck, cyrb53, sessionIdFromToken } from '../src/signing';

// An independent cyrb53 in BigInt arithmetic (no Math.imul, no 32-bit coercions), written from the
// constants in upstream-protocol.md, so a slip in the real one cannot be copied into the expectation.
function referenceCyrb53(str: string, seed = 0): number {
  const m32 = 0xffffffffn;
  const mul = (a: bigint, b: bigint): bigint => (a * b) & m32;
  const s = BigInt(seed >>> 0);
  let h1 = (0xdeadbeefn ^ s) & m32;
  let h2 = (0x41c6ce57n ^ s) & m32;
  for (let i = 0; i < str.length; i++) {
    const ch = BigInt(str.charCodeAt(i));
    h1 = mul(h1 ^ ch, 2654435761n);
    h2 = mul(h2 ^ ch, 1597334677n);
  }
  h1 = mul(h1 ^ (h1 >> 16n), 2246822507n) ^ mul(h2 ^ (h2 >> 13n), 3266489909n);
  h2 = mul(h2 ^ (h2 >> 16n), 2246822507n) ^ mul(h1 ^ (h1 >> 13n), 3266489909n);
  return Number(((h2 & 0x1fffffn) << 32n) | h1);
}

describe('cyrb53', () => {
  it('matches values computed by a separate (Python) port of the published algorithm', () => {
    expect(cyrb53('a')).toBe(7929297801672961);
    expect(cyrb53('')).toBe(3338908027751811);
    expect(cyrb53('revenge')).toBe(4051478007546757);
    expect(cyrb53('revenge', 1)).toBe(159804134958634);
  });

  it.each([
    ['a', 0],
    ['', 0],
    ['oybZy8-fySzis-bubayf_/api/v1/account/me_123456789012345678', 0],
    ['necvac-govry3-tybkYz_/api/v1/account/9876/following_1', 0],
    ['the quick brown fox jumps over the lazy dog '.repeat(20), 0],
    ['seeded', 42],
    ['seeded', 0x7fffffff],
    ['non-ascii é ✓ 😀', 0],
  ])('agrees with the BigInt reference for %j seed %i', (input, seed) => {
    const value = cyrb53(input, seed);
    expect(value).toBe(referenceCyrb53(input, seed));
    expect(Number.isSafeInteger(value)).toBe(true);
    expect(value).toBeLessThan(2 ** 53);
  });
});

describe('clientCheck', () => {
  it('hashes key, pathname and device id joined by underscores, in hex', () => {
    const check = clientCheck('oybZy8-fySzis-bubayf', '/api/v1/account/me', '123456789012345678');
    expect(check).toBe('1c4c4b2e21a302');
    expect(check).toBe(
      referenceCyrb53('oybZy8-fySzis-bubayf_/api/v1/account/me_123456789012345678').toString(16),
    );
  });

  it('changes with the key, the path and the device', () => {
    const base = clientCheck('k', '/api/v1/account/me', '1');
    expect(clientCheck('k2', '/api/v1/account/me', '1')).not.toBe(base);
    expect(clientCheck('k', '/api/v1/account/walls', '1')).not.toBe(base);
    expect(clientCheck('k', '/api/v1/account/me', '2')).not.toBe(base);
  });
});

describe('ClientTimestamp', () => {
  it('adds a jitter of 5000 - floor(10000 * random) to the clock', () => {
    expect(new ClientTimestamp({ now: () => 1_000_000, random: () => 0 }).next()).toBe(1_005_000);
    expect(new ClientTimestamp({ now: () => 1_000_000, random: () => 0.99999 }).next()).toBe(995_001);
    expect(new ClientTimestamp({ now: () => 1_000_000, random: () => 0.5 }).next()).toBe(1_000_000);
  });

  it('never moves backwards, even when the jitter or the clock would', () => {
    // Each step: [clock, random] and the candidate it gives, clock + 5000 - floor(10000 * random).
    const steps: Array<[number, number]> = [
      [1_000_000, 0], // 1_005_000
      [1_000_100, 0.9], // 996_100: jitter goes back
      [997_100, 0.5], // 997_100: the clock itself went back
      [997_110, 0.99], // 992_210
      [1_017_110, 0.1], // 1_021_110: ahead again
    ];
    let i = 0;
    const ts = new ClientTimestamp({ now: () => steps[i]?.[0] ?? 0, random: () => steps[i++]?.[1] ?? 0 });
    const values = steps.map(() => ts.next());
    expect(values).toEqual([1_005_000, 1_005_000, 1_005_000, 1_005_000, 1_021_110]);
  });

  it('stays within 5 s of the real clock by default', () => {
    const ts = new ClientTimestamp();
    const before = Date.now();
    const value = ts.next();
    expect(value).toBeGreaterThanOrEqual(before - 5000);
    expect(value).toBeLessThanOrEqual(Date.now() + 5000);
  });
});

describe('sessionIdFromToken', () => {
  const token = (plain: string): string => Buffer.from(plain).toString('base64');

  it('returns the first field of the decoded token', () => {
    expect(sessionIdFromToken(token('312345678901234567:1:2:0a1b2c3d4e5f'))).toBe('312345678901234567');
  });

  it('rejects tokens of another shape', () => {
    expect(sessionIdFromToken('')).toBeUndefined();
    expect(sessionIdFromToken(token('no-separator'))).toBeUndefined();
    expect(sessionIdFromToken(token(':1:2:hash'))).toBeUndefined();
    expect(sessionIdFromToken('not base64 at all!')).toBeUndefined();
    expect(sessionIdFromToken(`Bearer ${token('1:1:2:h')}`)).toBeUndefined();
  });
});
