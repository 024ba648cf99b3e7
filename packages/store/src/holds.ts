import type { Redis } from 'ioredis';
import { defineScripts } from './lua';

const holdScripts = (redis: Redis) =>
  defineScripts<'release_hold' | 'extend_hold'>(redis, new URL('./lua/', import.meta.url), {
    'release-hold': 1,
    'extend-hold': 1,
  });

/**
 * Deletes `key` only while it still holds `owner`'s token: a hold that lapsed and was taken by
 * another owner is left alone (re-login locks, action windows, write marks).
 */
export async function releaseHold(redis: Redis, key: string, owner: string): Promise<void> {
  await holdScripts(redis).release_hold(key, owner);
}

/** Keeps `owner`'s hold of `key` for another `ms`, only while it is still `owner`'s. */
export async function extendHold(redis: Redis, key: string, owner: string, ms: number): Promise<void> {
  await holdScripts(redis).extend_hold(key, owner, ms);
}
