import { invalidField, notAllowed, notFound } from '../errors';
import { compareIds } from '../ids';
import { bodyObject, type Query, queryCursorId, queryInt, queryString, requiredBodyId } from '../params';
import type { AlbumMediaItem, VaultAlbum, VaultMedia } from '../records';
import { ALBUM_TYPE_ALL, type CreatorState, STANDARD_ALBUM_TYPES } from '../world/state';
import { albumMedia, VAULT_MEDIA_PAGE_SIZE, vaultMediaById } from '../world/vault';
import type { ApiContext, ApiRoute } from './types';

/** Albums by pos (deleted ones left out) and the vault media of their last items. */
function albums(ctx: ApiContext): unknown {
  const world = ctx.core.world.creator(ctx.creator);
  const live: VaultAlbum[] = [...ctx.core.world.state(ctx.creator).albums.values()]
    .filter((album) => album.deletedAt === undefined)
    .sort((a, b) => a.pos - b.pos);
  const media: VaultMedia[] = [];
  const seen = new Set<string>();
  for (const album of live) {
    if (seen.has(album.lastItemId)) continue;
    seen.add(album.lastItemId);
    const last = vaultMediaById(world, album.lastItemId);
    if (last) media.push(last);
  }
  return { albums: live, aggregationData: { media } };
}

function deleteAlbum(ctx: ApiContext): unknown {
  const body = bodyObject(ctx.body);
  const albumId = requiredBodyId(body, 'albumId');
  const state = ctx.core.world.state(ctx.creator);
  const album = state.albums.get(albumId);
  if (!album || album.deletedAt !== undefined) throw notFound('album');
  if (album.type !== null && STANDARD_ALBUM_TYPES.includes(album.type))
    throw notAllowed('Standard albums cannot be deleted.');
  return state.deleteAlbum(album, ctx.now);
}

/**
 * The album `/media/vaultnew` reads: `albumId`, or `type` for a standard album (38000 All, 1000
 * Posts, 5000 Messages). Unknown or deleted: 404; neither given, or another type: 400 code 10.
 */
function queriedAlbum(state: CreatorState, query: Query): VaultAlbum {
  const albumId = queryString(query, 'albumId');
  if (albumId !== undefined) {
    const album = state.albums.get(albumId);
    if (!album || album.deletedAt !== undefined) throw notFound('album');
    return album;
  }
  const type = queryInt(query, 'type', 0, 0);
  if (!STANDARD_ALBUM_TYPES.includes(type)) throw invalidField(type === 0 ? 'albumId' : 'type');
  const album = [...state.albums.values()].find((a) => a.type === type && a.deletedAt === undefined);
  if (!album) throw notFound('album');
  return album;
}

/**
 * One page of an album's items, newest first, with the vault media they hold. Asked by its id, the
 * All album lists nothing: the platform keeps no item rows for it (it is asked by `type=38000`).
 * `before` is the last item id read (absent or 0: the newest); `mediaType` 1 or 2 keeps images or
 * videos; `after` and `search` are ignored.
 */
function albumMediaPage(ctx: ApiContext): unknown {
  const state = ctx.core.world.state(ctx.creator);
  const album = queriedAlbum(state, ctx.query);
  const before = queryCursorId(ctx.query, 'before');
  const mediaType = queryInt(ctx.query, 'mediaType', 0, 0);
  const allById = album.type === ALBUM_TYPE_ALL && queryString(ctx.query, 'albumId') !== undefined;
  const items: AlbumMediaItem[] = allById
    ? []
    : (albumMedia(state, album.id) ?? [])
        .filter((item) => before === null || compareIds(item.id, before) < 0)
        .filter((item) => mediaType === 0 || item.mediaType === mediaType)
        .slice(0, VAULT_MEDIA_PAGE_SIZE);
  const media = [...new Set(items.map((item) => item.mediaId))]
    .map((mediaId) => vaultMediaById(state.world, mediaId))
    .filter((found): found is VaultMedia => found !== null);
  return { albumMedia: items, media };
}

export const vaultRoutes: ApiRoute[] = [
  {
    method: 'GET',
    path: '/vault/albumsnew',
    summary:
      '`{albums, aggregationData: {media}}`: albums not deleted, by `pos`, the three standard ones first (`type` 38000 All, 1000 Posts, 5000 Messages; user albums `type` null), and the vault media of their `lastItemId`s.',
    auth: 'session',
    handler: albums,
  },
  {
    method: 'GET',
    path: '/media/vaultnew',
    summary:
      "One page (50) of an album's items, newest first: `albumId`, or `type` 38000/1000/5000 for a standard album (neither: 400 code 10; unknown or deleted album: 404). The All album asked by `albumId` lists nothing (the platform lists it by `type`). `before` = the last item id read (`0`: the newest); `mediaType` 1 or 2 filters; `after`, `search` ignored. `{albumMedia: [{id, mediaId, mediaType, albumId, accountId, createdAt, customFilename}], media}` (the vault media of the page). An album's items are its `itemCount`, its `lastItemId` first.",
    auth: 'session',
    handler: albumMediaPage,
  },
  {
    method: 'POST',
    path: '/vault/albums/delete',
    summary:
      '`{albumId}` → the album with `deletedAt` and `lastSyncAt`, `version` + 1. Unknown or deleted: 404; a standard album: 403 code 20.',
    auth: 'session',
    write: true,
    handler: deleteAlbum,
  },
];
