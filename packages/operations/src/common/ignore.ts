import type { OperationContext } from '../define';
import { coerce } from './coerce';

const { obj, arr, str, num } = coerce;

/**
 * `ignoreFlags` bits of the platform's `/account/ignore` (GUESS, docs/upstream-decisions.md, chat
 * actions; the sandbox's IGNORE_FLAGS): 1 mute, 2 block, 4 VIP.
 */
export const IGNORE_FLAGS = { mute: 1, block: 2, vip: 4 } as const;

/**
 * Read-modify-write of one fan's ignore flags: the current bitmask is read from `GET /ignore`, so
 * setting one bit keeps the others (block, VIP, mute). An unknown fan is the platform's 404 on the
 * write. Answers the flags now set.
 */
export async function updateIgnoreFlags(
  call: OperationContext['call'],
  fanId: string,
  change: (flags: number) => number,
): Promise<number> {
  const listed = arr(obj(await call('ignoreList', { query: { noAggregation: true } })).ignoring);
  const current = num(listed.find((row) => str(row.ignoredId) === fanId)?.ignoreFlags);
  const written = obj(
    await call('accountIgnore', { body: { ignoredId: fanId, ignoreFlags: change(current) } }),
  );
  return num(written.ignoreFlags);
}
