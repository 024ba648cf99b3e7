import { describe, expect, it } from 'vitest';
import { compareIds, decodeId, encodeId, Kind, RUNTIME_NAMESPACE_BASE, RuntimeIds } from '../src/ids';
import { Rand, Timeline } from '../src/rand';
import { RollingMinute } from '../src/traffic';

describe('snowflake ids', () => {
  it('round-trip time, namespace and kind', () => {
    const ms = Date.UTC(2025, 0, 2, 3, 4, 5, 678);
    const id = encodeId(ms, 4321, Kind.message);
    expect(id).toMatch(/^\d{18,19}$/);
    expect(decodeId(id)).toEqual({ ms, namespace: 4321, kind: Kind.message });
  });

  it('refuse what is not a snowflake', () => {
    for (const bad of ['', 'abc', '-1', '1.5', '99999999999999999999', '9223372036854775808'])
      expect(decodeId(bad)).toBeNull();
  });

  it('compare numerically without BigInt', () => {
    expect(compareIds('9', '10')).toBeLessThan(0);
    expect(compareIds('818895842230403106', '818895842230403105')).toBeGreaterThan(0);
    expect(compareIds('5', '5')).toBe(0);
  });

  it('mint increasing runtime ids, unique within the same millisecond', () => {
    const ids = new RuntimeIds();
    const minted = Array.from({ length: 5000 }, () => ids.next(Kind.session));
    expect(new Set(minted).size).toBe(minted.length);
    for (let i = 1; i < minted.length; i++)
      expect(compareIds(minted[i] as string, minted[i - 1] as string)).toBeGreaterThan(0);
    expect(decodeId(minted[0] as string)?.namespace).toBeGreaterThanOrEqual(RUNTIME_NAMESPACE_BASE);
  });
});

describe('timeline', () => {
  it('is strictly decreasing and invertible', () => {
    const timeline = new Timeline(new Rand(7, 3), Kind.transaction, 1_750_000_000_000, 1000);
    let previous = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 2000; i++) {
      const ms = timeline.at(i);
      expect(ms).toBeLessThan(previous);
      expect(timeline.indexOf(ms)).toBe(i);
      previous = ms;
    }
    expect(timeline.indexOf(timeline.at(5) + 1)).toBe(-1);
    expect(timeline.countNewerThan(timeline.at(10), 2000)).toBe(10);
  });

  it('depends only on seed, namespace and index', () => {
    expect(new Rand(1, 2).u32(Kind.fan, 10)).toBe(new Rand(1, 2).u32(Kind.fan, 10));
    expect(new Rand(1, 2).u32(Kind.fan, 10)).not.toBe(new Rand(2, 2).u32(Kind.fan, 10));
    expect(new Rand(1, 2).u32(Kind.fan, 10)).not.toBe(new Rand(1, 3).u32(Kind.fan, 10));
  });
});

describe('rolling minute', () => {
  it('accepts up to the limit, then gives the wait until the oldest second leaves the window', () => {
    const minute = new RollingMinute();
    const start = 1_000_000_000;
    expect(minute.tryAdd(start, 3)).toBe(0);
    expect(minute.tryAdd(start + 10_000, 3)).toBe(0);
    expect(minute.tryAdd(start + 20_000, 3)).toBe(0);
    expect(minute.tryAdd(start + 30_000, 3)).toBe(30);
    expect(minute.tryAdd(start + 60_000, 3)).toBe(0);
  });
});
