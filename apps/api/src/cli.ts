import { parseArgs } from 'node:util';
import { GatewayEnv, parseEnv } from '@cg/config';
import { ApiKeyStore, connectRedis, redisAddress, storeKeys } from '@cg/store';
import { type Static, Type } from 'typebox';

const USAGE = `usage: pnpm keys <command>
  create --tenant <tenant> [--label <text>]   create a key (printed once; only its hash is stored)
  list                                         list keys (ids, tenants, labels; never the keys)
  revoke <key_id>                              revoke a key`;

/** The settings the CLI reads: API keys are hashes, so it needs Redis and never ENCRYPTION_KEY. */
const KeysEnv = Type.Pick(GatewayEnv, ['REDIS_URL', 'REDIS_PREFIX']);

/**
 * API key management. Writes results to stdout, problems to stderr; exit code 2 on misuse, 1 when
 * the command failed (a bad setting, Redis unreachable, an unknown key id).
 */
async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(argv);
  } catch (error) {
    // An unknown option, or an option without its value.
    return usage((error as Error).message);
  }
  const { positionals, values } = parsed;
  const [command, arg] = positionals;
  if (command === 'create' && !values.tenant) return usage('create needs --tenant');
  if (command === 'revoke' && !arg) return usage('revoke needs a key id');
  if (command !== 'create' && command !== 'list' && command !== 'revoke')
    return usage(command ? `unknown command ${command}` : 'no command');

  let config: Static<typeof KeysEnv>;
  try {
    config = parseEnv(KeysEnv, process.env);
  } catch (error) {
    return fail((error as Error).message); // a ConfigError naming the setting
  }
  const redis = connectRedis(config.REDIS_URL, { maxRetriesPerRequest: 1, lazyConnect: true });
  redis.on('error', () => {}); // reported once below, not as an ioredis event per retry
  try {
    await redis.connect();
  } catch {
    redis.disconnect();
    return fail(`Redis at ${redisAddress(redis)} cannot be reached (REDIS_URL)`);
  }
  const apiKeys = new ApiKeyStore(redis, storeKeys(config.REDIS_PREFIX));
  try {
    if (command === 'create') {
      const { key, info } = await apiKeys.create(values.tenant as string, values.label ?? '');
      process.stdout.write(`${key}\n`);
      process.stderr.write(
        `created ${info.keyId} for tenant ${info.tenantId}; the key is shown only this once\n`,
      );
    } else if (command === 'list') {
      for (const info of await apiKeys.list()) {
        process.stdout.write(
          `${info.keyId}\t${info.tenantId}\t${new Date(info.createdAt).toISOString()}\t${info.label}\n`,
        );
      }
    } else {
      if (!(await apiKeys.revoke(arg as string))) return fail(`no key ${arg}`);
      process.stderr.write(`revoked ${arg}\n`);
    }
    return 0;
  } catch (error) {
    return fail((error as Error).message);
  } finally {
    redis.disconnect();
  }
}

function parseOptions(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: { tenant: { type: 'string' }, label: { type: 'string' } },
  });
}

function fail(problem: string): number {
  process.stderr.write(`keys: ${problem}\n`);
  return 1;
}

function usage(problem: string): number {
  process.stderr.write(`${problem}\n${USAGE}\n`);
  return 2;
}

process.exitCode = await main(process.argv.slice(2));
