import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateKey, parseKeyring, SecretsError } from '../src/keyring';

describe('keyring', () => {
  const key = generateKey();

  it('round-trips and never contains the plaintext', () => {
    const ring = parseKeyring(key);
    const sealed = ring.seal('sandbox-password');
    expect(sealed).not.toContain('sandbox-password');
    expect(sealed.startsWith('v1.k1.')).toBe(true);
    expect(ring.open(sealed)).toBe('sandbox-password');
    expect(ring.seal('same')).not.toBe(ring.seal('same'));
  });

  it('binds the context', () => {
    const ring = parseKeyring(key);
    const sealed = ring.sealJson({ a: 1 }, 'acct_1');
    expect(ring.openJson(sealed, 'acct_1')).toEqual({ a: 1 });
    expect(() => ring.open(sealed, 'acct_2')).toThrow(SecretsError);
  });

  it('rejects tampering', () => {
    const ring = parseKeyring(key);
    const sealed = ring.seal('secret');
    const parts = sealed.split('.');
    parts[4] = Buffer.from('other').toString('base64url');
    expect(() => ring.open(parts.join('.'))).toThrow(SecretsError);
  });

  it('rotates: the new key seals, the old key still opens', () => {
    const oldRing = parseKeyring(`old:${key}`);
    const sealedOld = oldRing.seal('x');
    const rotated = parseKeyring(`new:${generateKey()},old:${key}`);
    expect(rotated.open(sealedOld)).toBe('x');
    expect(rotated.seal('y').split('.')[1]).toBe('new');
  });

  it('rotates from a lone key with explicit ids, and refuses a list without them', () => {
    const lone = parseKeyring(key);
    const sealed = lone.seal('before rotation');
    expect(parseKeyring(`k2:${generateKey()},k1:${key}`).open(sealed)).toBe('before rotation');
    expect(() => parseKeyring(`${generateKey()},${key}`)).toThrow(/needs its id/);
  });

  it('refuses a truncated authentication tag', () => {
    const ring = parseKeyring(key);
    const parts = ring.seal('secret').split('.');
    parts[3] = Buffer.from(parts[3]!, 'base64url').subarray(0, 4).toString('base64url');
    expect(() => ring.open(parts.join('.'))).toThrow(SecretsError);
  });

  it('digests with each key, the active first: stable, keyed, and recognised across a rotation', () => {
    const ring = parseKeyring(key);
    const [digest] = ring.digests('payout 1 code 123456');
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(ring.digests('payout 1 code 123456')).toEqual([digest]);
    expect(ring.digests('payout 1 code 123457')[0]).not.toBe(digest);
    // Not a plain hash, and not what another key gives.
    expect(digest).not.toBe(createHash('sha256').update('payout 1 code 123456').digest('hex'));
    expect(parseKeyring(generateKey()).digests('payout 1 code 123456')[0]).not.toBe(digest);
    const rotated = parseKeyring(`k2:${generateKey()},k1:${key}`);
    const [active, old] = rotated.digests('payout 1 code 123456');
    expect(old).toBe(digest);
    expect(active).not.toBe(digest);
  });

  it('refuses a short key', () => {
    expect(() => parseKeyring(Buffer.alloc(16).toString('base64'))).toThrow(/32 bytes/);
  });
});
