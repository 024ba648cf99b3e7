import { Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { refusedAs } from '../common/platform-refusal';
import { AccountParams, EXAMPLE_ACCOUNT_ID, PlatformId } from '../common/schemas';
import { DeletedVaultAlbum } from '../common/vault-album';
import { accountUpdate, defineOperation, upstreamData } from '../define';

export const vaultAlbumDelete = defineOperation({
  name: 'vault-album-delete',
  method: 'DELETE',
  path: '/:accountId/vault/albums/:albumId',
  summary: 'Permanently delete a user vault album',
  tags: ['vault'],
  ...accountUpdate,
  notFoundMessage: 'album not found: no album with this albumId on the account, or it is already deleted',
  schemas: {
    params: Type.Object({
      ...AccountParams.properties,
      albumId: PlatformId('id of a user album'),
    }),
    data: Upstream(DeletedVaultAlbum.schema),
  },
  example: { params: { accountId: EXAMPLE_ACCOUNT_ID, albumId: '799224761749078295' } },
  run: async ({ params }, { call }) => {
    const album = await refusedAs(
      'standard albums (All, Posts, Messages) cannot be deleted; only user albums can',
      () => call('vaultAlbumDelete', { body: { albumId: params.albumId } }),
    );
    return upstreamData(DeletedVaultAlbum.from(album));
  },
});
