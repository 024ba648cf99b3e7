import { invalidField, notFound } from '../errors';
import { bodyObject, requiredBodyId } from '../params';
import { fileMedia } from '../world/vault';
import type { ApiContext, ApiRoute } from './types';

/**
 * The media host's upload API (`mediav2` on the platform, this port in the sandbox): create an upload
 * and get its presigned part URLs, complete it with the parts' ETags, read its status until its media
 * exists. Then `POST /vault/albums/media` files the media in an album.
 */

function createUpload(ctx: ApiContext): unknown {
  const { uploads, config, origin } = ctx.core;
  return uploads.create(ctx.creator, bodyObject(ctx.body), config.uploadPartBytes, origin, ctx.now);
}

function completeUpload(ctx: ApiContext): unknown {
  return ctx.core.uploads.complete(ctx.creator, bodyObject(ctx.body), ctx.core.config.uploadProcessingMs);
}

function readUpload(ctx: ApiContext): unknown {
  return ctx.core.uploads.get(ctx.creator, ctx.params.id);
}

/** `{albumId, mediaIds[]}`: the media filed in the album (already filed ones stay once). */
function fileInAlbum(ctx: ApiContext): unknown {
  const body = bodyObject(ctx.body);
  const albumId = requiredBodyId(body, 'albumId');
  const mediaIds = body.mediaIds;
  if (!Array.isArray(mediaIds) || mediaIds.length === 0 || mediaIds.some((id) => typeof id !== 'string'))
    throw invalidField('mediaIds');
  const state = ctx.core.world.state(ctx.creator);
  const album = state.albums.get(albumId);
  if (!album || album.deletedAt !== undefined) throw notFound('album');
  const world = ctx.core.world.creator(ctx.creator);
  if ((mediaIds as string[]).some((id) => world.mediaIndexOf(id) < 0)) throw notFound('media');
  fileMedia(state, album, mediaIds as string[], ctx.now);
  return { albumId, mediaIds };
}

export const mediaRoutes: ApiRoute[] = [
  {
    method: 'POST',
    path: '/media/upload/create',
    summary:
      'Creates an upload of the calling account → its presigned part URLs, on the sandbox’s own port (parts of `uploadPartBytes`).',
    auth: 'session',
    write: true,
    handler: createUpload,
  },
  {
    method: 'POST',
    path: '/media/upload/complete',
    summary: 'Completes an upload with its parts’ ETags; its media exists `uploadProcessingMs` later.',
    auth: 'session',
    write: true,
    handler: completeUpload,
  },
  {
    method: 'GET',
    path: '/media/upload/:id',
    summary: 'An upload’s status, and its media once made.',
    auth: 'session',
    handler: readUpload,
  },
  {
    method: 'POST',
    path: '/vault/albums/media',
    summary:
      '`{albumId, mediaIds[]}` files the media in the album (one filed already stays once) → `{albumId, mediaIds}`; its `itemCount` grows, the newest is its `lastItemId`. Unknown or deleted album, unknown media: 404.',
    auth: 'session',
    write: true,
    handler: fileInAlbum,
  },
];
