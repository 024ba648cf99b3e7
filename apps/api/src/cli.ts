import { parseArgs } from 'node:util';
import { GatewayEnv, parseEnv } from '@cg/config';
import {
  type ApiKeyInfo,
  ApiKeyStore,
  connectRedis,
  KEY_ACCESS,
  type KeyAccess,
  redisAddress,
  storeKeys,
} from '@cg/store';
import { type Static, Type } from 'typebox';

const USAGE = `usage: pnpm keys <command>
  create --tenant <tenant> [--label <text>] [--rpm <n>] [--access read|write|admin] [--accounts <ids>]
                                               create a key (printed once; only its hash is stored)
                                               limited to n requests a minute (default
                                               API_KEY_RPM_DEFAULT, 0 = unlimited), with that access
                                               (default admin) to those service account ids
                                               (comma-separated; default every account)
  list                                         list keys (ids, tenants, dates, limits, scopes, labels; never the keys)
  revoke <key_id>                              revoke a key`;

/** The settings the CLI reads: API keys are hashes, so it needs Redis and never ENCRYPTION_KEY. */
const KeysEnv = Type.Pick(GatewayEnv, [
  'REDIS_URL',
  'REDIS_CLUSTER_NODES',
  'REDIS_PREFIX',
  'API_KEY_RPM_DEFAULT',
]);

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
  if (values.rpm !== undefined && !/^\d{1,9}$/.test(values.rpm))
    return usage('--rpm takes a whole number of requests a minute (0 = unlimited)');
  if (values.access !== undefined && !(KEY_ACCESS as readonly string[]).includes(values.access))
    return usage(`--access takes one of ${KEY_ACCESS.join(', ')}`);
  if (values.accounts !== undefined && !/^[^,\s]+(,[^,\s]+)*$/.test(values.accounts))
    return usage('--accounts takes service account ids separated by commas');
  if (command === 'revoke' && !arg) return usage('revoke needs a key id');
  if (command !== 'create' && command !== 'list' && command !== 'revoke')
    return usage(command ? `unknown command ${command}` : 'no command');

  let config: Static<typeof KeysEnv>;
  try {
    config = parseEnv(KeysEnv, process.env);
  } catch (error) {
    return fail((error as Error).message); // a ConfigError naming the setting
  }
  const redis = connectRedis(config, { maxRetriesPerRequest: 1, lazyConnect: true });
  redis.on('error', () => {}); // reported once below, not as an ioredis event per retry
  try {
    await redis.connect();
  } catch {
    redis.disconnect();
    return fail(
      `Redis at ${redisAddress(redis)} cannot be reached (${config.REDIS_CLUSTER_NODES ? 'REDIS_CLUSTER_NODES' : 'REDIS_URL'})`,
    );
  }
  const apiKeys = new ApiKeyStore(redis, storeKeys(config.REDIS_PREFIX));
  try {
    if (command === 'create') {
      // The limit is the key's own from now on (its plan), whatever the default becomes later.
      const rpm = values.rpm === undefined ? config.API_KEY_RPM_DEFAULT : Number(values.rpm);
      const { key, info } = await apiKeys.create(values.tenant as string, {
        label: values.label ?? '',
        rpm,
        access: (values.access as KeyAccess | undefined) ?? 'admin',
        accounts: values.accounts === undefined ? null : values.accounts.split(','),
      });
      process.stdout.write(`${key}\n`);
      process.stderr.write(
        `created ${info.keyId} for tenant ${info.tenantId} (${limitText(rpm)}, ${scopeText(info)}); the key is shown only this once\n`,
      );
    } else if (command === 'list') {
      for (const info of await apiKeys.list()) {
        process.stdout.write(
          `${info.keyId}\t${info.tenantId}\t${new Date(info.createdAt).toISOString()}\t${keyLimit(info.rpm, config.API_KEY_RPM_DEFAULT)}\t${scopeText(info)}\t${info.label}\n`,
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
    options: {
      tenant: { type: 'string' },
      label: { type: 'string' },
      rpm: { type: 'string' },
      access: { type: 'string' },
      accounts: { type: 'string' },
    },
  });
}

/** `admin, every account` or `read, acct_a acct_b`. */
const scopeText = (info: ApiKeyInfo) =>
  `${info.access}, ${info.accounts === null ? 'every account' : info.accounts.join(' ')}`;

const limitText = (rpm: number) => (rpm === 0 ? 'unlimited' : `${rpm}/min`);

/** A key's limit as listed: its own, or the default for keys made before limits existed. */
function keyLimit(rpm: number | undefined, defaultRpm: number): string {
  return rpm === undefined ? `${limitText(defaultRpm)} (default)` : limitText(rpm);
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
