import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';

/**
 * The gateway's Redis scripts are `.lua` files in a `lua/` folder beside the code that runs them,
 * each headed with what it does, its KEYS and ARGV, and what it returns.
 */

/** The text of the files `<name>.lua` of `folder`, joined in that order (Redis has no includes). */
export function luaSource(folder: URL, names: readonly string[]): string {
  return names.map((name) => readFileSync(new URL(`${name}.lua`, folder), 'utf8')).join('\n');
}

/** A connection with scripts defined on it: each a command taking KEYS, then ARGV. */
export type Scripted<Name extends string> = Redis &
  Record<Name, (...args: (string | number)[]) => Promise<unknown>>;

/** The scripts defined on each connection, by command name. */
const defined = new WeakMap<Redis, Set<string>>();

/**
 * Defines scripts of `folder` as commands of `redis`, once per connection (a later call finds them
 * there): ioredis runs a defined command by its SHA (EVALSHA) and sends the text only when Redis
 * does not have it. `scripts`: file name → how many of a call's arguments are KEYS. The command is
 * the file name with `_` for `-`; a name the client already has (a Redis command) is refused.
 */
export function defineScripts<Name extends string>(
  redis: Redis,
  folder: URL,
  scripts: Record<string, number>,
): Scripted<Name> {
  const names = defined.get(redis) ?? new Set<string>();
  defined.set(redis, names);
  for (const [name, numberOfKeys] of Object.entries(scripts)) {
    const command = name.replaceAll('-', '_');
    if (names.has(command)) continue;
    if (command in redis) throw new Error(`script ${name}: ${command} is already a command of the client`);
    redis.defineCommand(command, { numberOfKeys, lua: luaSource(folder, [name]) });
    names.add(command);
  }
  return redis as Scripted<Name>;
}
