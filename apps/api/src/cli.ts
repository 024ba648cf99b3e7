import { parseArgs } from 'node:util';
import { createLogger, loadGatewayConfig } from '@cg/config';
import { parseKeyring } from '@cg/secrets';
import { connectRedis, createStore } from '@cg/store';

const USAGE = `usage: pnpm keys <command>
  create --tenant <tenant> [--label <text>]   create a key (printed once; only its hash is stored)
  list                                         list keys (ids, tenants, labels; never the keys)
  revoke <key_id>                              revoke a key`;

/** API key management. Writes results to stdout, problems to stderr; exit code 2 on misuse. */
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
  const config = loadGatewayConfig(process.env);
  const logger = createLogger({ level: 'warn', name: 'keys' });
  const redis = connectRedis(config.REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    const store = createStore(redis, config.REDIS_PREFIX, parseKeyring(config.ENCRYPTION_KEY));
    switch (command) {
      case 'create': {
        if (!values.tenant) return usage('create needs --tenant');
        const { key, info } = await store.apiKeys.create(values.tenant, values.label ?? '');
        process.stdout.write(`${key}\n`);
        process.stderr.write(
          `created ${info.keyId} for tenant ${info.tenantId}; the key is shown only this once\n`,
        );
        return 0;
      }
      case 'list': {
        for (const info of await store.apiKeys.list()) {
          process.stdout.write(
            `${info.keyId}\t${info.tenantId}\t${new Date(info.createdAt).toISOString()}\t${info.label}\n`,
          );
        }
        return 0;
      }
      case 'revoke': {
        if (!arg) return usage('revoke needs a key id');
        if (!(await store.apiKeys.revoke(arg))) {
          process.stderr.write(`no key ${arg}\n`);
          return 1;
        }
        process.stderr.write(`revoked ${arg}\n`);
        return 0;
      }
      default:
        return usage(command ? `unknown command ${command}` : 'no command');
    }
  } catch (error) {
    logger.error({ err: error }, 'keys command failed');
    process.stderr.write(`${(error as Error).message}\n`);
    return 1;
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

function usage(problem: string): number {
  process.stderr.write(`${problem}\n${USAGE}\n`);
  return 2;
}

process.exitCode = await main(process.argv.slice(2));
