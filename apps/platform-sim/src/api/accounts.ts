import { invalidField, notFound } from '../errors';
import { encodeId, Kind } from '../ids';
import { queryCsv, queryCursorId, queryLimit, queryOffset } from '../params';
import type { PlatformProfile } from '../records';
import { creatorProfile, fanProfile } from '../world/profiles';
import type { ApiContext, ApiRoute } from './types';

const MAX_IDS = 100;

/**
 * Profiles by `ids` (csv of platform account ids) or, without them, by `usernames` (csv; exact, any
 * case): creators, the sandbox accounts' fans and the other profiles. Unknown ones are skipped.
 */
function accountsByIds(ctx: ApiContext): PlatformProfile[] {
  const world = ctx.core.world;
  if (ctx.query.ids === undefined && ctx.query.usernames !== undefined) {
    const usernames = queryCsv(ctx.query, 'usernames');
    if (usernames.length === 0 || usernames.length > MAX_IDS) throw invalidField('usernames');
    return usernames.flatMap((username) => {
      const ref = world.resolveUsername(username);
      return ref ? [world.profile(ref)] : [];
    });
  }
  const ids = queryCsv(ctx.query, 'ids');
  if (ids.length === 0 || ids.length > MAX_IDS) throw invalidField('ids');
  const seen = new Set<string>();
  const profiles: PlatformProfile[] = [];
  for (const id of ids) {
    if (seen.has(id)) continue;
    seen.add(id);
    const ref = world.resolveAccount(id);
    if (ref) profiles.push(world.profile(ref));
  }
  return profiles;
}

function me(ctx: ApiContext): unknown {
  const world = ctx.core.world;
  return { account: creatorProfile(world.creator(ctx.creator), world.state(ctx.creator)) };
}

function walls(ctx: ApiContext): unknown {
  const world = ctx.core.world;
  return { accountId: world.identity(ctx.creator).accountId, walls: world.state(ctx.creator).walls };
}

/** Accounts followed by a sandbox creator, most recent follow first; fans and other profiles follow nobody here. */
function following(ctx: ApiContext): unknown {
  const accountId = ctx.params.accountId ?? '';
  const limit = queryLimit(ctx.query);
  const offset = queryOffset(ctx.query);
  // The platform's snowflake bounds: checked like everywhere (400 code 10), though paging is by offset.
  queryCursorId(ctx.query, 'before');
  queryCursorId(ctx.query, 'after');
  const world = ctx.core.world;
  const ref = world.resolveAccount(accountId);
  if (!ref) throw notFound('account');
  if (ref.type !== 'creator') return [];
  const creatorWorld = world.creator(ref.creator);
  const out: { accountId: string }[] = [];
  for (let k = offset; k < creatorWorld.followingCount && out.length < limit; k++) {
    out.push({ accountId: creatorWorld.fanId(creatorWorld.followedFan(k)) });
  }
  return out;
}

/**
 * The creator's followers (fans who follow them), newest first: `{followers: [{id, followerId,
 * createdAt}], aggregationData: {accounts}}`, each account with `followsYou` (the creator follows
 * them); `limit`/`offset`. Another account than the caller's own: 404.
 */
function followers(ctx: ApiContext): unknown {
  const world = ctx.core.world;
  const creatorWorld = world.creator(ctx.creator);
  if (ctx.params.accountId !== creatorWorld.accountId) throw notFound('account');
  const limit = queryLimit(ctx.query);
  const offset = queryOffset(ctx.query);
  const conversations = world.conversations(ctx.creator);
  const followed = new Set(
    Array.from({ length: creatorWorld.followingCount }, (_, k) => creatorWorld.followedFan(k)),
  );
  const rows: { id: string; followerId: string; createdAt: number }[] = [];
  const accounts: unknown[] = [];
  let seen = 0;
  // Fans in index order, a follow every 90 minutes back from the anchor: newest first.
  for (let fan = 0; fan < creatorWorld.fanCount && rows.length < limit; fan++) {
    if (!conversations.isFollower(fan)) continue;
    if (seen++ < offset) continue;
    const createdAt = creatorWorld.anchorMs - (fan + 1) * 90 * 60_000;
    rows.push({
      id: encodeId(createdAt, creatorWorld.namespace, Kind.follow),
      followerId: creatorWorld.fanId(fan),
      createdAt,
    });
    accounts.push({ ...fanProfile(creatorWorld, fan), followsYou: followed.has(fan) });
  }
  return { followers: rows, aggregationData: { accounts } };
}

export const accountRoutes: ApiRoute[] = [
  { method: 'GET', path: '/account', auth: 'session', handler: accountsByIds },
  { method: 'GET', path: '/account/me', auth: 'session', handler: me },
  { method: 'GET', path: '/account/walls', auth: 'session', handler: walls },
  { method: 'GET', path: '/account/:accountId/following', auth: 'session', handler: following },
  { method: 'GET', path: '/account/:accountId/followersnew', auth: 'session', handler: followers },
];
