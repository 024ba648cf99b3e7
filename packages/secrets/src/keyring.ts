import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM sealing of secrets at rest (credentials, platform sessions, 2FA state, sensitive job
 * input and results). A sealed value is `v1.<keyId>.<iv>.<tag>.<ciphertext>` (base64url parts): the key
 * id travels with the ciphertext, so a key can be rotated by putting the new key first in the keyring
 * and keeping the old one after it until everything sealed with it has expired or been re-sealed.
 */
export interface Keyring {
  seal(plaintext: string, context?: string): string;
  open(sealed: string, context?: string): string;
  sealJson(value: unknown, context?: string): string;
  openJson<T>(sealed: string, context?: string): T;
  /**
   * Keyed digests of `value` (HMAC-SHA256), one per key, the active key's first: what lets a value
   * holding a secret (a request with a 2FA code) be recognised again without being guessable from
   * Redis. A digest made before a rotation is among the digests made after it while its key is kept.
   */
  digests(value: string): string[];
}

export class SecretsError extends Error {
  override readonly name = 'SecretsError';
}

const VERSION = 'v1';

/** The id of a key given alone, without `id:` (what everything sealed before a first rotation carries). */
export const DEFAULT_KEY_ID = 'k1';
const TAG_BYTES = 16;

/**
 * Parses `ENCRYPTION_KEY`: either one base64 key of 32 bytes (key id `k1`), or a comma-separated
 * list of `keyId:base64key` whose first entry encrypts and all of which decrypt. In a list every key
 * needs its id, so the ids of old ciphertexts never shift: rotate from a lone key with
 * `k2:<new>,k1:<old>`.
 */
export function parseKeyring(spec: string): Keyring {
  const parts = spec
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  const entries = parts.map((part) => {
    const colon = part.indexOf(':');
    if (colon === -1 && parts.length > 1) {
      throw new SecretsError('in a list of encryption keys every key needs its id (id:base64key)');
    }
    const [id, b64] = colon === -1 ? [DEFAULT_KEY_ID, part] : [part.slice(0, colon), part.slice(colon + 1)];
    const key = Buffer.from(b64, 'base64');
    if (key.length !== 32) throw new SecretsError(`encryption key ${id} must be 32 bytes of base64`);
    if (!/^[A-Za-z0-9_-]+$/.test(id)) throw new SecretsError(`encryption key id ${id} must be [A-Za-z0-9_-]`);
    return [id, key] as const;
  });
  const first = entries[0];
  if (!first) throw new SecretsError('no encryption key given');
  return createKeyring(first[0], new Map(entries));
}

export function generateKey(): string {
  return randomBytes(32).toString('base64');
}

function createKeyring(activeId: string, keys: Map<string, Buffer>): Keyring {
  const active = keys.get(activeId)!;
  // Digest keys are derived, so that no key is used both to encrypt and to authenticate digests.
  const digestKeys = [activeId, ...[...keys.keys()].filter((id) => id !== activeId)].map((id) =>
    Buffer.from(hkdfSync('sha256', keys.get(id)!, '', 'creator-gateway digest', 32)),
  );
  // `context` is bound as additional authenticated data, so a value sealed for one record
  // (e.g. one account's credentials) cannot be copied into another and still open.
  const seal = (plaintext: string, context = ''): string => {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', active, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [
      VERSION,
      activeId,
      iv.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
      body.toString('base64url'),
    ].join('.');
  };
  const open = (sealed: string, context = ''): string => {
    const [version, keyId, iv, tag, body] = sealed.split('.');
    if (version !== VERSION || !keyId || !iv || !tag || body === undefined)
      throw new SecretsError('not a sealed value');
    const key = keys.get(keyId);
    if (!key) throw new SecretsError(`unknown encryption key id ${keyId}`);
    try {
      const authTag = Buffer.from(tag, 'base64url');
      // GCM would accept a truncated tag (and with it forgeries): only the full 16 bytes open.
      if (authTag.length !== TAG_BYTES) throw new SecretsError('bad tag');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(authTag);
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      throw new SecretsError('sealed value failed authentication');
    }
  };
  return {
    seal,
    open,
    sealJson: (value, context) => seal(JSON.stringify(value), context),
    openJson: <T>(sealed: string, context?: string) => JSON.parse(open(sealed, context)) as T,
    digests: (value) => digestKeys.map((key) => createHmac('sha256', key).update(value).digest('hex')),
  };
}
