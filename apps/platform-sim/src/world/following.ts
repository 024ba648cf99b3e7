import { encodeId, Kind, type RuntimeIds } from '../ids';
import type { FollowRecord } from '../records';
import type { CreatorWorld } from './creator';

/**
 * What the creator's own follows and unfollows changed (CreatorState.following): relations made at
 * run time by target id, oldest first, and the seeded relations undone.
 */
export interface FollowingChanges {
  made: Map<string, FollowRecord>;
  undone: Set<string>;
}

export const emptyFollowingChanges = (): FollowingChanges => ({ made: new Map(), undone: new Set() });

/**
 * The accounts a creator follows: the seeded list (fans of its own, creator.ts `followedFan`) with
 * the follows and unfollows made through the API laid over it. Newest follow first; a relation keeps
 * its id and createdAt while it stands, so a repeated follow answers the same record.
 */
export class Following {
  constructor(
    private readonly world: CreatorWorld,
    private readonly changes: FollowingChanges,
    private readonly ids: RuntimeIds,
  ) {}

  /** The standing relation to `targetId`, or null when the creator does not follow it. */
  relation(targetId: string): FollowRecord | null {
    const made = this.changes.made.get(targetId);
    if (made) return made;
    if (this.changes.undone.has(targetId)) return null;
    const fan = this.world.fanIndexOf(targetId);
    const position = fan < 0 ? -1 : this.world.followPosition(fan);
    return position < 0 ? null : this.seeded(position);
  }

  /** Account ids of the followed accounts, newest follow first, from `offset`. */
  page(offset: number, limit: number): string[] {
    const out: string[] = [];
    let seen = 0;
    const take = (accountId: string): boolean => {
      if (seen++ >= offset) out.push(accountId);
      return out.length < limit;
    };
    for (const accountId of [...this.changes.made.keys()].reverse()) if (!take(accountId)) return out;
    for (let k = 0; k < this.world.followingCount; k++) {
      const accountId = this.world.fanId(this.world.followedFan(k));
      if (this.changes.undone.has(accountId) || this.changes.made.has(accountId)) continue;
      if (!take(accountId)) return out;
    }
    return out;
  }

  /** Follows `targetId`: the new relation, or the standing one unchanged. */
  follow(targetId: string, now: number): FollowRecord {
    const standing = this.relation(targetId);
    if (standing) return standing;
    const record: FollowRecord = {
      id: this.ids.next(Kind.follow),
      followerId: this.world.accountId,
      accountId: targetId,
      createdAt: now,
    };
    this.changes.made.set(targetId, record);
    return record;
  }

  /** Undoes the relation to `targetId`: the removed record, or null when there was none. */
  unfollow(targetId: string): FollowRecord | null {
    const standing = this.relation(targetId);
    if (!standing) return null;
    this.changes.made.delete(targetId);
    // A seeded relation stays in the seed: it is marked undone (a later follow makes a new one).
    this.changes.undone.add(targetId);
    return standing;
  }

  private seeded(position: number): FollowRecord {
    const w = this.world;
    const createdAt = w.followedAt(position);
    return {
      id: encodeId(createdAt, w.namespace, Kind.follow),
      followerId: w.accountId,
      accountId: w.fanId(w.followedFan(position)),
      createdAt,
    };
  }
}
