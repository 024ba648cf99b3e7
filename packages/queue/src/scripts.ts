import { luaSource } from '@cg/store';

/** What every lane script starts with (lua/prelude.lua says what each gives). */
const LANE_INCLUDES = ['prelude', 'bullmq', 'lane'];

/**
 * The source of a script of `lua/`: the files it includes, then its own, joined into one (Redis has
 * no includes; BullMQ does the same when it builds its scripts). Lane scripts include
 * `LANE_INCLUDES`; others name theirs.
 */
export function luaScript(name: string, includes: string[] = LANE_INCLUDES): string {
  return luaSource(new URL('./lua/', import.meta.url), [...includes, name]);
}
