import { invalidField, notAllowed, notFound } from '../errors';
import { encodeId, Kind } from '../ids';
import { queryCsv, queryCursorId, queryLimit, queryOffset } from '../params';
import type { FollowRecord, PlatformProfile } from '../records';
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

/**
 * Accounts followed by a sandbox creator, most recent follow first (the seeded list with the
 * creator's own follows and unfollows); fans and other profiles follow nobody here.
 */
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
  return world
    .following(ref.creator)
    .page(offset, limit)
    .map((followed) => ({ accountId: followed }));
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
  const following = world.following(ctx.creator);
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
    const followsYou = following.relation(creatorWorld.fanId(fan)) !== null;
    accounts.push({ ...fanProfile(creatorWorld, fan), followsYou });
  }
  return { followers: rows, aggregationData: { accounts } };
}

/**
 * The account a follow or unfollow names (`/account/:accountId/followers…`): unknown 404, the
 * creator itself 400 code 10.
 */
function followTarget(ctx: ApiContext): string {
  const targetId = ctx.params.accountId ?? '';
  if (!ctx.core.world.resolveAccount(targetId)) throw notFound('account');
  if (targetId === ctx.core.world.identity(ctx.creator).accountId) throw invalidField('accountId');
  return targetId;
}

/**
 * GUESS (docs/upstream-decisions.md, follow): the creator follows an account, no body; the answer is
 * the relation `{id, followerId, accountId, createdAt}`, the standing one unchanged when it already
 * follows.
 */
function follow(ctx: ApiContext): FollowRecord {
  return ctx.core.world.following(ctx.creator).follow(followTarget(ctx), ctx.now);
}

/** GUESS (as follow): the removed relation; an account the creator does not follow is 403 code 20. */
function unfollow(ctx: ApiContext): FollowRecord {
  const removed = ctx.core.world.following(ctx.creator).unfollow(followTarget(ctx));
  if (!removed) throw notAllowed('not following this account');
  return removed;
}

export const accountRoutes: ApiRoute[] = [
  {
    method: 'GET',
    path: '/account',
    summary:
      "Profiles of 1 to 100 platform account ids (else 400 code 10): creators, their fans, the other profiles. In request order; unknown ids skipped, duplicates once. Without `ids`, `usernames=<csv>` (1 to 100) looks them up by username, exact and any case: creators, the sandbox accounts' fans (not the extra creators'), the other profiles.",
    auth: 'session',
    handler: accountsByIds,
  },
  {
    method: 'GET',
    path: '/account/me',
    summary:
      "`{account}`: the creator's own profile, with walls and tiers; `pinnedPosts` lists posts created with `pinned`.",
    auth: 'session',
    handler: me,
  },
  {
    method: 'GET',
    path: '/account/walls',
    summary: '`{accountId, walls}`, walls by `pos`.',
    auth: 'session',
    handler: walls,
  },
  {
    method: 'GET',
    path: '/account/:accountId/following',
    summary:
      '`[{accountId}]`: the accounts a sandbox creator follows (seeded fans, then its own follows first), most recent first; `limit`/`offset` paging; `before`/`after` checked, not used. A fan or other profile follows nobody (`[]`); an unknown id: 404.',
    auth: 'session',
    handler: following,
  },
  {
    method: 'GET',
    path: '/account/:accountId/followersnew',
    summary:
      "`{followers: [{id, followerId, createdAt}], aggregationData: {accounts}}`: the creator's followers, newest first, each profile with `followsYou` (the creator follows them back); `limit`/`offset`. Another account than the caller's own: 404.",
    auth: 'session',
    handler: followers,
  },
  {
    method: 'POST',
    path: '/account/:accountId/followers',
    summary:
      '**GUESS** (the answer). The creator follows the account, no body → the relation `{id, followerId (the creator), accountId, createdAt}`; already followed: the standing relation unchanged. It then heads `/following`. Unknown account: 404; the creator itself: 400 code 10.',
    auth: 'session',
    write: true,
    handler: follow,
  },
  {
    method: 'POST',
    path: '/account/:accountId/followers/remove',

    summary:
      '**GUESS** (the answer). The creator stops following the account → the removed relation; it leaves `/following`. Not followed: 403 code 20; unknown account: 404; the creator itself: 400 code 10.',
    auth: 'session',
    write: true,
    handler: unfollow,
  },
];
