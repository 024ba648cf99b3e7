import { GatewayError, Upstream } from '@cg/contract';
import type { AccountRecord } from '@cg/store';
import { Type } from 'typebox';
import { coerce } from '../common/coerce';
import { UPSTREAM_PAGE_MAX } from '../common/paging';
import { refusedAs } from '../common/platform-refusal';
import { AccountParams, EXAMPLE_ACCOUNT_ID, PlatformId } from '../common/schemas';
import {
  accountCreate,
  accountUpdate,
  defineOperation,
  type OperationContext,
  upstreamData,
} from '../define';
import { Follower } from '../followers/operation';

const { arr, str } = coerce;

const TargetParams = Type.Object({
  ...AccountParams.properties,
  targetUserId: PlatformId('platform account id of the account to follow or unfollow'),
});

const example = { params: { accountId: EXAMPLE_ACCOUNT_ID, targetUserId: '788291264641499137' } };

const NOT_FOUND = 'unknown account: no platform account has this id';

/** The creator's platform id, once the target is known not to be the creator itself (a 400). */
function creatorOtherThan(account: AccountRecord | undefined, targetUserId: string): string {
  if (!account) throw new GatewayError('INTERNAL', 'follow needs the connected account');
  if (account.platformAccountId === targetUserId)
    throw new GatewayError(
      'BAD_REQUEST',
      'targetUserId is the creator itself: an account cannot follow itself',
    );
  return account.platformAccountId;
}

/**
 * Whether the creator follows `targetUserId` already: its following list, page by page. The platform's
 * follow answers a standing relation like a new one, so only this read tells 200 from 201.
 */
async function follows(call: OperationContext['call'], creatorId: string, targetUserId: string) {
  for (let offset = 0; ; offset += UPSTREAM_PAGE_MAX) {
    const page = arr(
      await call('following', {
        params: { accountId: creatorId },
        query: { before: 0, after: 0, limit: UPSTREAM_PAGE_MAX, offset },
      }),
    );
    if (page.some((entry) => str(entry.accountId) === targetUserId)) return true;
    if (page.length < UPSTREAM_PAGE_MAX) return false;
  }
}

export const follow = defineOperation({
  name: 'follow',
  method: 'POST',
  path: '/:accountId/follow/:targetUserId',
  summary: 'The creator follows an account (201 new, 200 already following), answered with the relation',
  tags: ['audience'],
  ...accountCreate,
  notFoundMessage: NOT_FOUND,
  picksStatus: true,
  schemas: { params: TargetParams, data: Upstream(Follower.schema) },
  example,
  run: async ({ params }, { call, account, succeedWith }) => {
    const creatorId = creatorOtherThan(account, params.targetUserId);
    const standing = await follows(call, creatorId, params.targetUserId);
    // A repeat answers the standing relation (upstream-decisions.md, follow): the write is idempotent.
    const relation = await call('accountFollow', { params: { accountId: params.targetUserId } });
    succeedWith(standing ? 200 : 201);
    return upstreamData(Follower.from(relation));
  },
});

export const unfollow = defineOperation({
  name: 'unfollow',
  method: 'POST',
  path: '/:accountId/unfollow/:targetUserId',
  summary: 'The creator stops following an account, answered with the removed relation',
  tags: ['audience'],
  ...accountUpdate,
  notFoundMessage: NOT_FOUND,
  schemas: { params: TargetParams, data: Upstream(Follower.schema) },
  example,
  run: async ({ params }, { call, account }) => {
    creatorOtherThan(account, params.targetUserId);
    const removed = await refusedAs(
      'the creator does not follow this account (a repeated unfollow: the first took effect)',
      () => call('accountUnfollow', { params: { accountId: params.targetUserId } }),
      'CONFLICT',
    );
    return upstreamData(Follower.from(removed));
  },
});
