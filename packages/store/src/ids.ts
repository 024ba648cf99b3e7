import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random base62 string; 22 characters carry ~131 bits. */
export function randomId(length = 22): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const byte of bytes) out += ALPHABET[byte % 62];
  return out;
}

/** Prefixed ids tell what they name at a glance: `acct_…`, `job_…`, `key_…`. */
export const newId = (prefix: 'acct' | 'job' | 'key' | 'tfa') => `${prefix}_${randomId()}`;

/**
 * Whether `id` can be a service account id (`newId('acct')`). Any other string is no account, and
 * must not reach a key name: `<id>:jobs` would name the account's list of connect jobs.
 */
export const isAccountId = (id: string) => /^acct_[0-9A-Za-z]{1,64}$/.test(id);

export const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
