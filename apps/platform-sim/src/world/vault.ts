import { encodeId, Kind } from '../ids';
import { coprimeStride } from '../rand';
import type { AlbumMediaItem, VaultAlbum, VaultMedia } from '../records';
import type { CreatorWorld } from './creator';
import type { CreatorState, FiledMedia } from './state';

/** Items a `/media/vaultnew` page holds, as the platform pages them (seen: 50). */
export const VAULT_MEDIA_PAGE_SIZE = 50;

const SECOND_MS = 1000;

/**
 * The media filed in an album, newest first (by item id), or null for an unknown or deleted album.
 * The one source of every album's contents, so they always agree with the album's `itemCount` and
 * `lastItemId` (its newest item's media): media filed at run time belong here too.
 */
export function albumMedia(state: CreatorState, albumId: string): AlbumMediaItem[] | null {
  const album = state.albums.get(albumId);
  if (!album || album.deletedAt !== undefined) return null;
  const filed = state.filedMedia.get(albumId);
  if (!filed) return seededAlbumMedia(state.world, album);
  const world = state.world;
  const added = filed.items.toReversed().map(({ mediaId, filedAt }) => {
    const media = world.vaultMedia(world.mediaIndexOf(mediaId));
    return {
      id: encodeId(filedAt, world.namespace, Kind.albumItem),
      mediaId,
      mediaType: media.type,
      albumId,
      accountId: world.accountId,
      createdAt: filedAt,
      customFilename: media.filename,
    };
  });
  return [...added, ...seededAlbumMedia(world, { ...album, ...filed.seeded })];
}

/**
 * Files media in an album (uploads): its `itemCount` grows, its newest one is its `lastItemId`. A
 * media filed already stays once. Item times are whole milliseconds apart.
 */
export function fileMedia(state: CreatorState, album: VaultAlbum, mediaIds: string[], now: number): void {
  const filed = state.filedMediaOf(album);
  const known = new Set([...filed.items.map((item) => item.mediaId), ...seededIds(state, album, filed)]);
  for (const mediaId of mediaIds) {
    if (known.has(mediaId)) continue;
    known.add(mediaId);
    const filedAt = Math.max(now, (filed.items.at(-1)?.filedAt ?? 0) + 1);
    filed.items.push({ mediaId, filedAt });
    album.itemCount += 1;
    album.lastItemId = mediaId;
    album.version += 1;
    album.lastSyncAt = now;
  }
}

function seededIds(state: CreatorState, album: VaultAlbum, filed: FiledMedia): string[] {
  return seededAlbumMedia(state.world, { ...album, ...filed.seeded }).map((item) => item.mediaId);
}

/** The vault media a media id names, or null when the creator has none with that id. */
export function vaultMediaById(world: CreatorWorld, mediaId: string): VaultMedia | null {
  const index = world.mediaIndexOf(mediaId);
  return index < 0 ? null : world.vaultMedia(index);
}

/**
 * A seeded album's items: its `lastItemId` media first, then `itemCount - 1` other media picked by a
 * seeded permutation, newest media first (the All album: every media, in order). Each was filed
 * after its media existed and after the album was created, one second apart; the album's `pos` is
 * the millisecond of every item time, so no two albums share an item id.
 */
function seededAlbumMedia(world: CreatorWorld, album: VaultAlbum): AlbumMediaItem[] {
  // Its newest item filed at run time (not a seeded media), an album keeps its seeded items after it.
  const last = Math.max(0, world.mediaIndexOf(album.lastItemId));
  const indexes = [last, ...otherMedia(world, album, last)];
  const newestMediaMs = Math.max(...indexes.map((index) => world.media.at(index)));
  const filedFrom = Math.max(album.createdAt, newestMediaMs) + indexes.length * SECOND_MS;
  const newestMs = Math.ceil(filedFrom / SECOND_MS) * SECOND_MS + album.pos;
  return indexes.map((index, k) => {
    const media = world.vaultMedia(index);
    const createdAt = newestMs - k * SECOND_MS;
    return {
      id: encodeId(createdAt, world.namespace, Kind.albumItem),
      mediaId: media.id,
      mediaType: media.type,
      albumId: album.id,
      accountId: world.accountId,
      createdAt,
      customFilename: media.filename,
    };
  });
}

/** `itemCount - 1` distinct media other than `last`, ascending by index (newest media first). */
function otherMedia(world: CreatorWorld, album: VaultAlbum, last: number): number[] {
  const others = world.mediaCount - 1;
  const count = Math.max(0, Math.min(album.itemCount, world.mediaCount) - 1);
  if (count === 0) return [];
  const salt = album.pos + 1;
  const stride = coprimeStride(others, world.rand.int(2, 1000, Kind.albumItem, salt, 1));
  const base = world.rand.int(0, others - 1, Kind.albumItem, salt, 2);
  const picked = Array.from({ length: count }, (_, j) => {
    const other = (base + j * stride) % others;
    return other < last ? other : other + 1;
  });
  return picked.sort((a, b) => a - b);
}
