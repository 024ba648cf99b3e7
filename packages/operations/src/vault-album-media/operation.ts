import { GatewayError, inResponse, Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { coerce } from '../common/coerce';
import { idCursor } from '../common/id-cursor';
import { f, type RecordValue, record } from '../common/record';
import { AccountParams, EXAMPLE_ACCOUNT_ID, Nullable, PlatformId, Text } from '../common/schemas';
import { VaultMedia } from '../common/vault-album';
import { accountRead, defineOperation, type OperationContext, upstreamData } from '../define';

const { obj, arr, str } = coerce;

/** Items per page: the platform's own page (seen: 50), which takes no limit. */
export const ALBUM_MEDIA_PAGE_SIZE = 50;
/** The standard All album: the platform lists it by this type, not by its id. */
const ALBUM_TYPE_ALL = 38000;

const CURSOR_RULE = 'must be a cursor this endpoint answered (the id of the last item read)';
const NOT_FOUND = 'album not found: no album with this albumId on the account, or it was deleted';

/** Album media item (contract): one media filed in the album, with its vault media. */
export const AlbumMediaItem = record({
  id: f.id('the item’s id in the album'),
  mediaId: f.id('use it in mediaIds'),
  previewId: f.nullable(f.id(), { emptyIsNull: true }),
  mediaType: f.number('1 image, 2 video'),
  customFilename: f.nullableString('the file’s name as uploaded', { emptyIsNull: true }),
  media: f.record(VaultMedia, 'the vault media; its signed locations expire after about five hours'),
});
export type AlbumMediaItem = RecordValue<typeof AlbumMediaItem>;

const AlbumMediaResponse = Type.Object({
  media: Type.Array(AlbumMediaItem.schema),
  cursor: Nullable(Type.String({ description: 'next (older) page; null on the last' })),
});

export const vaultAlbumMedia = defineOperation({
  name: 'vault-album-media',
  paging: { cursor: inResponse('cursor'), items: inResponse('media') },
  method: 'GET',
  path: '/:accountId/vault/albums/:albumId/media',
  summary: 'The media of one vault album, newest first',
  tags: ['vault'],
  ...accountRead,
  notFoundMessage: NOT_FOUND,
  schemas: {
    params: Type.Object({
      ...AccountParams.properties,
      albumId: PlatformId('id of an album (GET .../vault/albums)'),
    }),
    querystring: Type.Object({
      cursor: Type.Optional(Text('response.cursor of the previous page')),
    }),
    data: Upstream(AlbumMediaResponse),
  },
  example: {
    params: { accountId: EXAMPLE_ACCOUNT_ID, albumId: '799224761749078295' },
    query: { cursor: '881347416597491712' },
  },
  check: ({ query }) => idCursor.check(query.cursor, CURSOR_RULE),
  run: async ({ params, query }, { call }) => {
    const album = await findAlbum(params.albumId, call);
    const fetched = obj(
      await call('vaultMedia', {
        query: {
          // The All album has no item rows of its own upstream: it is the whole vault, asked by type.
          ...(album.type === ALBUM_TYPE_ALL ? { type: ALBUM_TYPE_ALL } : { albumId: params.albumId }),
          mediaType: '',
          search: '',
          // `before` is the last item read: older ones, newest first. 0, not empty, for the first page
          // (an empty bound answers an empty page).
          before: idCursor.toUpstream(query.cursor) ?? '0',
          after: '0',
        },
      }),
    );
    const items = arr(fetched.albumMedia);
    const mediaById = new Map(arr(fetched.media).map((media) => [str(media.id), media]));
    const media = items.map((item) =>
      AlbumMediaItem.from({ ...item, media: mediaById.get(str(item.mediaId)) }),
    );
    // The platform takes no page size: a full page may have more after it, a shorter one is the last.
    const last = media.at(-1);
    const cursor = items.length >= ALBUM_MEDIA_PAGE_SIZE && last ? last.id : null;
    return upstreamData({ media, cursor });
  },
});

/**
 * The album as the account's album list has it, which tells the All album (listed upstream by type)
 * and answers an album it does not list (unknown or deleted) 404 before its media are asked for.
 */
async function findAlbum(albumId: string, call: OperationContext['call']): Promise<{ type: number | null }> {
  const albums = arr(obj(await call('vaultAlbums')).albums);
  const album = albums.find((candidate) => str(candidate.id) === albumId && candidate.deletedAt == null);
  if (!album) throw new GatewayError('NOT_FOUND', NOT_FOUND);
  return { type: typeof album.type === 'number' ? album.type : null };
}
