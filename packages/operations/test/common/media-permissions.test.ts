import { describe, expect, it } from 'vitest';
import {
  checkMediaPermissions,
  PERMISSION_BITS,
  upstreamPermissions,
} from '../../src/common/media-permissions';
import { dollarsToMills } from '../../src/common/money';

describe('dollarsToMills: the one conversion of a request price', () => {
  it('is round(dollars × 1000)', () => {
    expect(dollarsToMills(9.99)).toBe(9990);
    expect(dollarsToMills(1)).toBe(1000);
    expect(dollarsToMills(500)).toBe(500_000);
    // 0.1 + 0.2 style binary fractions still land on whole mills.
    expect(dollarsToMills(4.35)).toBe(4350);
    expect(dollarsToMills(19.9999)).toBe(20000);
    expect(dollarsToMills(2.0004)).toBe(2000);
  });
});

const media = { mediaIds: ['820357346407481613'] };

describe('upstreamPermissions', () => {
  it('makes no rule for free media, and one rule per alternative with the conditions combined', () => {
    expect(upstreamPermissions(media)).toEqual([]);
    expect(upstreamPermissions({ ...media, permissions: [] })).toEqual([]);
    const [root] = upstreamPermissions({
      ...media,
      access_type: ['subscription', 'ppv'],
      price: 9.99,
      subscriptionTierId: '77',
    });
    expect(root).toMatchObject({
      type: 0,
      flags: PERMISSION_BITS.ppv | PERMISSION_BITS.subscription,
      price: 9990,
    });
    expect(JSON.parse(root?.metadata ?? '')).toEqual({
      1: JSON.stringify({ price: 9990 }),
      4: JSON.stringify({ subscriptionTierId: '77' }),
    });
  });

  it('lets permissions override the root fields (rules ORed)', () => {
    const rules = upstreamPermissions({
      ...media,
      access_type: 'ppv',
      price: 50,
      permissions: [
        { access_type: 'follow' },
        { access_type: ['list', 'limited_time'], listId: '12', validBefore: 1_900_000_000_000 },
      ],
    });
    expect(rules.map((rule) => rule.flags)).toEqual([PERMISSION_BITS.follow, PERMISSION_BITS.list]);
    expect(rules.every((rule) => rule.price === 0)).toBe(true);
    expect(rules[1]).toMatchObject({ validBefore: 1_900_000_000_000 });
  });
});

describe('checkMediaPermissions', () => {
  it.each([
    [{ ...media, access_type: 'ppv' }, 'price'],
    [{ ...media, price: 5 }, 'price'],
    [{ access_type: 'ppv', price: 5 }, 'mediaIds'],
    [{ ...media, access_type: 'list' }, 'listId'],
    [{ ...media, access_type: 'limited_time' }, 'validAfter'],
    [{ ...media, access_type: 'limited_time', validAfter: 2e12, validBefore: 1e12 }, 'validAfter'],
    [{ ...media, permissions: [{ access_type: 'follow', price: 3 }] }, 'permissions[0].price'],
    [{ permissions: [{ access_type: 'follow' }] }, 'mediaIds'],
  ] as const)('refuses %j naming %s', (body, field) => {
    expect(checkMediaPermissions(body as never)).toContain(field);
  });

  it('accepts free media, a ppv send, and root fields next to permissions (ignored)', () => {
    expect(checkMediaPermissions(media)).toBeUndefined();
    expect(checkMediaPermissions({ ...media, access_type: 'ppv', price: 9.99 })).toBeUndefined();
    expect(
      checkMediaPermissions({ ...media, price: 5, permissions: [{ access_type: 'follow' }] }),
    ).toBeUndefined();
  });
});
