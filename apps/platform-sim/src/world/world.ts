import { decodeId, Kind, RuntimeIds } from '../ids';
import { SANDBOX_ACCOUNTS } from '../options';
import type { PlatformProfile } from '../records';
import { Broadcasts, seedScheduledBroadcasts, seedSentBroadcasts } from './broadcasts';
import { CdnLinks } from './cdn-links';
import { ChatIndex } from './chats';
import { Conversations } from './conversations';
import { CreatorWorld } from './creator';
import { CreatorDirectory, type CreatorIdentity } from './directory';
import { Earnings } from './earnings';
import type { Following } from './following';
import { seedPosts } from './posts';
import { creatorProfile, fanProfile, GlobalProfiles } from './profiles';
import { CreatorState } from './state';

export type AccountRef =
  | { type: 'creator'; creator: number }
  | { type: 'fan'; creator: number; fan: number }
  | { type: 'profile'; index: number };

export interface WorldSettings {
  seed: number;
  extraCreators: number;
  anchorMs: number;
  cdnBaseUrl: string;
}

/** A creator's state as the seed makes it: its own collections, then its broadcasts and posts. */
function seededState(world: CreatorWorld, ids: RuntimeIds): CreatorState {
  const state = new CreatorState(world, ids);
  seedScheduledBroadcasts(state);
  const seeded = seedPosts(world, state.walls);
  for (const post of seeded.posts) state.putPost(post);
  for (const schedule of seeded.schedules) state.addPostSchedule(schedule);
  seedSentBroadcasts(state);
  return state;
}

interface CreatorEntry {
  world: CreatorWorld;
  chats: ChatIndex | null;
  state: CreatorState | null;
}

/**
 * All sandbox worlds. A creator's world is built on first use (a login, a by-ids lookup of one of
 * its ids, a fixtures request), so 10,000 idle extra creators cost nothing but their index.
 */
export class World {
  readonly directory: CreatorDirectory;
  readonly profiles: GlobalProfiles;
  readonly ids = new RuntimeIds();
  readonly cdn: CdnLinks;
  private readonly creators = new Map<number, CreatorEntry>();

  constructor(readonly settings: WorldSettings) {
    this.directory = new CreatorDirectory(settings.seed, settings.anchorMs, settings.extraCreators);
    this.cdn = new CdnLinks(settings.seed, settings.anchorMs, settings.cdnBaseUrl);
    this.profiles = new GlobalProfiles(settings.seed, settings.anchorMs, this.cdn);
  }

  identity(creator: number): CreatorIdentity {
    const identity = this.directory.identity(creator);
    if (!identity) throw new Error(`no sandbox creator #${creator}`);
    return identity;
  }

  private entry(creator: number): CreatorEntry {
    let entry = this.creators.get(creator);
    if (!entry) {
      const world = new CreatorWorld(
        this.identity(creator),
        this.settings.seed,
        this.settings.anchorMs,
        this.cdn,
      );
      entry = { world, chats: null, state: null };
      this.creators.set(creator, entry);
    }
    return entry;
  }

  creator(creator: number): CreatorWorld {
    return this.entry(creator).world;
  }

  chats(creator: number): ChatIndex {
    const entry = this.entry(creator);
    entry.chats ??= new ChatIndex(entry.world);
    return entry.chats;
  }

  state(creator: number): CreatorState {
    const entry = this.entry(creator);
    entry.state ??= seededState(entry.world, this.ids);
    return entry.state;
  }

  /** The creator's chats with what was written since laid over them (sent, deleted, offers). */
  conversations(creator: number): Conversations {
    return new Conversations(this.chats(creator), this.state(creator), this.ids);
  }

  /** The accounts the creator follows, with its own follows and unfollows. */
  following(creator: number): Following {
    return this.state(creator).following;
  }

  /** The creator's earnings series, summed from its transactions. */
  earnings(creator: number): Earnings {
    return new Earnings(this.creator(creator));
  }

  /** The creator's mass messages: audience groups, broadcasts, their history. */
  broadcasts(creator: number): Broadcasts {
    return new Broadcasts(this.conversations(creator), this.state(creator), this.ids);
  }

  /** Drops every change: the next use rebuilds each creator's state from the seed. */
  reset(): void {
    for (const entry of this.creators.values()) {
      entry.state = null;
      entry.world.uploaded.length = 0;
    }
  }

  /** Which platform account an id names, decoded from the id itself (no index needed). */
  resolveAccount(id: string): AccountRef | null {
    const decoded = decodeId(id);
    if (!decoded) return null;
    if (decoded.kind === Kind.profile) {
      const index = this.profiles.indexOf(id);
      return index >= 0 ? { type: 'profile', index } : null;
    }
    const creator = decoded.namespace - 1;
    const identity = this.directory.identity(creator);
    if (!identity) return null;
    if (decoded.kind === Kind.account) return identity.accountId === id ? { type: 'creator', creator } : null;
    if (decoded.kind === Kind.fan) {
      const fan = this.creator(creator).fanIndexOf(id);
      return fan >= 0 ? { type: 'fan', creator, fan } : null;
    }
    return null;
  }

  /**
   * Which platform account has a username (exact, any case): a creator, a fan of one of the sandbox
   * accounts (the extra creators' fans are not looked through: there may be thousands of them), or
   * one of the other profiles.
   */
  resolveUsername(username: string): AccountRef | null {
    const wanted = username.toLowerCase();
    // An e-mail is no username here, though the directory (logins) takes one.
    const creator = wanted.includes('@') ? -1 : this.directory.indexOf(wanted);
    if (creator >= 0) return { type: 'creator', creator };
    for (let sandbox = 0; sandbox < Math.min(SANDBOX_ACCOUNTS.length, this.directory.count); sandbox++) {
      const world = this.creator(sandbox);
      for (let fan = 0; fan < world.fanCount; fan++)
        if (world.fanUsername(fan).toLowerCase() === wanted) return { type: 'fan', creator: sandbox, fan };
    }
    for (let index = 0; index < this.profiles.count; index++)
      if (this.profiles.profile(index).username.toLowerCase() === wanted) return { type: 'profile', index };
    return null;
  }

  profile(ref: AccountRef): PlatformProfile {
    switch (ref.type) {
      case 'creator':
        return creatorProfile(this.creator(ref.creator), this.state(ref.creator));
      case 'fan':
        return fanProfile(this.creator(ref.creator), ref.fan);
      case 'profile':
        return this.profiles.profile(ref.index);
    }
  }
}
