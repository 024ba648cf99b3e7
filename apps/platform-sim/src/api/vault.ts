import { notAllowed, notFound } from '../errors';
import { bodyObject, requiredBodyId } from '../params';
import type { VaultAlbum, VaultMedia } from '../records';
import { STANDARD_ALBUM_TYPES } from '../world/state';
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
    const index = world.mediaIndexOf(album.lastItemId);
    if (index >= 0) media.push(world.vaultMedia(index));
  }
  return { albums: live, aggregationData: { media } };
}

function deleteAlbum(ctx: ApiContext): unknown {
  const body = bodyObject(ctx.body);
  const albumId = requiredBodyId(body, 'albumId');
  const album = ctx.core.world.state(ctx.creator).albums.get(albumId);
  if (!album || album.deletedAt !== undefined) throw notFound('album');
  if (album.type !== null && STANDARD_ALBUM_TYPES.includes(album.type))
    throw notAllowed('Standard albums cannot be deleted.');
  album.deletedAt = ctx.now;
  album.lastSyncAt = ctx.now;
  album.version += 1;
  return album;
}

export const vaultRoutes: ApiRoute[] = [
  { method: 'GET', path: '/vault/albumsnew', auth: 'session', handler: albums },
  { method: 'POST', path: '/vault/albums/delete', auth: 'session', write: true, handler: deleteAlbum },
];
