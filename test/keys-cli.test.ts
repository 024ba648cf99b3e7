import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { ApiKeyStore, randomId, sha256, storeKeys } from '@cg/store';
import { describe, expect, inject, it } from 'vitest';
import { freePort } from '../scripts/lib/redis';
import { fileRedis } from './support/redis';
import { everyKey } from './support/stack';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..');
const { redis, prefix } = fileRedis();
// No ENCRYPTION_KEY: keys are stored as hashes, so the CLI has no use for it.
const { ENCRYPTION_KEY: _unused, ...inherited } = process.env;
const env = { ...inherited, REDIS_URL: inject('redisUrl'), REDIS_PREFIX: prefix };
const keys = new ApiKeyStore(redis, storeKeys(prefix));

const cli = (...args: string[]) => cliWith(env, ...args);
const cliWith = (environment: NodeJS.ProcessEnv, ...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', 'apps/api/src/cli.ts', ...args], { cwd: root, env: environment });
type Failure = { code: number; stderr: string };

describe('pnpm keys', () => {
  it('creates a key printed once, stored only as a hash, listed and revoked', async () => {
    const created = await cli('create', '--tenant', 'acme', '--label', 'ci');
    const key = created.stdout.trim();
    expect(key).toMatch(/^cgk_[A-Za-z0-9]{32}$/);
    const info = await keys.resolve(key);
    expect(info).toMatchObject({ tenantId: 'acme', label: 'ci' });

    const stored = await everyKey(redis, prefix);
    for (const name of stored) {
      expect(name.includes(key)).toBe(false);
      const value = JSON.stringify(await redis.hgetall(name));
      expect(value.includes(key)).toBe(false);
    }

    const listed = await cli('list');
    expect(listed.stdout).toContain(info!.keyId);
    expect(listed.stdout).toContain('acme');
    expect(listed.stdout).not.toContain(key);

    await cli('revoke', info!.keyId);
    expect(await keys.resolve(key)).toBeNull();
    expect((await cli('list')).stdout).not.toContain(info!.keyId);
  });

  it('keeps the keys an earlier version stored outside the {keys} slot working, until revoked', async () => {
    // The layout before API keys shared a Cluster slot: `<prefix>:apikeys` and `<prefix>:apikey:<hash>`.
    const key = `cgk_${randomId(32)}`;
    const hash = sha256(key);
    const record = `${prefix}:apikey:${hash}`;
    await redis.hset(record, { keyId: 'key_legacy1', tenantId: 'old', label: 'v0', createdAt: '1' });
    await redis.hset(`${prefix}:apikeys`, 'key_legacy1', hash);

    expect((await cli('list')).stdout).toContain('key_legacy1\told');
    expect(await keys.resolve(key)).toMatchObject({ keyId: 'key_legacy1', tenantId: 'old', label: 'v0' });
    // Left where it was, for the processes of the earlier version during a rolling upgrade.
    expect(await redis.exists(record)).toBe(1);

    await cli('revoke', 'key_legacy1');
    expect(await keys.resolve(key)).toBeNull();
    expect(await redis.exists(record)).toBe(0);
    expect(await redis.hexists(`${prefix}:apikeys`, 'key_legacy1')).toBe(0);
    expect((await cli('list')).stdout).not.toContain('key_legacy1');
  });

  it('refuses misuse with exit code 2', async () => {
    await expect(cli('create')).rejects.toMatchObject({ code: 2 });
    await expect(cli('frobnicate')).rejects.toMatchObject({ code: 2 });
    // Options parseArgs refuses: a usage line and 2, not a stack trace.
    for (const args of [
      ['create', '--tenant'],
      ['list', '--nope'],
    ]) {
      const failure = await cli(...args).catch((error: { code: number; stderr: string }) => error);
      expect(failure).toMatchObject({ code: 2 });
      expect((failure as { stderr: string }).stderr).toContain('usage: pnpm keys');
      expect((failure as { stderr: string }).stderr).not.toContain('    at ');
    }
  });

  it('fails in one line with exit 1: an unknown key id, Redis away, a bad setting', async () => {
    const unknown = (await cli('revoke', 'key_nope').catch((error: Failure) => error)) as Failure;
    expect(unknown).toMatchObject({ code: 1, stderr: 'keys: no key key_nope\n' });

    // Host and port, never the URL's password.
    const port = await freePort();
    const away = (await cliWith(
      { ...env, REDIS_URL: `redis://:hunter2secret@127.0.0.1:${port}` },
      'list',
    ).catch((error: Failure) => error)) as Failure;
    expect(away).toMatchObject({
      code: 1,
      stderr: `keys: Redis at 127.0.0.1:${port} cannot be reached (REDIS_URL)\n`,
    });

    const bad = (await cliWith({ ...env, REDIS_PREFIX: 'a b' }, 'list').catch(
      (error: Failure) => error,
    )) as Failure;
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split('\n')).toEqual([
      expect.stringContaining('keys: invalid environment variable REDIS_PREFIX'),
    ]);
  });

  // Each CLI run starts a process of its own (seconds on a busy machine): they run side by side.
  it('stores each key’s requests a minute: --rpm, else API_KEY_RPM_DEFAULT; lists them', {
    timeout: 90_000,
  }, async () => {
    const withDefault = { ...env, API_KEY_RPM_DEFAULT: '750' };
    const [planned, defaulted, unlimited] = await Promise.all([
      cliWith(withDefault, 'create', '--tenant', 'acme', '--rpm', '1000'),
      cliWith(withDefault, 'create', '--tenant', 'acme'),
      cli('create', '--tenant', 'acme', '--rpm', '0'),
    ]);
    expect(defaulted.stderr).toContain('(750/min, admin, every account)');
    const [a, b, c] = await Promise.all(
      [planned, defaulted, unlimited].map(({ stdout }) => keys.resolve(stdout.trim())),
    );
    expect([a?.rpm, b?.rpm, c?.rpm]).toEqual([1000, 750, 0]);

    // A key stored before limits existed has none of its own: the default applies, and says so.
    await redis.hset(`${prefix}:{keys}:apikey:${sha256('cgk_old')}`, {
      keyId: 'key_norpm',
      tenantId: 'old',
      label: '',
      createdAt: '2',
    });
    await redis.hset(`${prefix}:{keys}:apikeys`, 'key_norpm', sha256('cgk_old'));
    const listed = (await cliWith(withDefault, 'list')).stdout.split('\n');
    expect(listed.find((line) => line.startsWith(`${a?.keyId}\t`))?.split('\t')[3]).toBe('1000/min');
    expect(listed.find((line) => line.startsWith(`${b?.keyId}\t`))?.split('\t')[3]).toBe('750/min');
    expect(listed.find((line) => line.startsWith(`${c?.keyId}\t`))?.split('\t')[3]).toBe('unlimited');
    expect(listed.find((line) => line.startsWith('key_norpm\t'))?.split('\t')[3]).toBe('750/min (default)');

    // A key stored before scopes existed is admin over every account, and listed so.
    expect(listed.find((line) => line.startsWith('key_norpm\t'))?.split('\t')[4]).toBe(
      'admin, every account',
    );

    const bad = ['-1', 'abc', '1.5', ''];
    const failures = await Promise.all(
      bad.map((rpm) => cli('create', '--tenant', 'acme', `--rpm=${rpm}`).catch((error: Failure) => error)),
    );
    for (const [i, failure] of failures.entries()) {
      expect((failure as Failure).code, `--rpm=${bad[i]}`).toBe(2);
      expect((failure as Failure).stderr).toContain('--rpm takes a whole number');
    }
  });

  it('makes a key of some access and accounts with --access and --accounts; refuses others', {
    timeout: 90_000,
  }, async () => {
    const [scoped, wrongAccess, wrongAccounts] = await Promise.all([
      cli('create', '--tenant', 'acme', '--access', 'read', '--accounts', 'acct_a,acct_b'),
      cli('create', '--tenant', 'acme', '--access', 'owner').catch((error: Failure) => error),
      cli('create', '--tenant', 'acme', '--accounts', 'acct_a,,acct_b').catch((error: Failure) => error),
    ]);
    expect(scoped.stderr).toContain('read, acct_a acct_b');
    expect(await keys.resolve(scoped.stdout.trim())).toMatchObject({
      access: 'read',
      accounts: ['acct_a', 'acct_b'],
    });
    expect((wrongAccess as Failure).code).toBe(2);
    expect((wrongAccess as Failure).stderr).toContain('--access takes one of read, write, admin');
    expect((wrongAccounts as Failure).code).toBe(2);
    expect((wrongAccounts as Failure).stderr).toContain('--accounts takes service account ids');
  });
});
