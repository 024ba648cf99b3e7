import { Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { coerce } from '../common/coerce';
import { AccountParams, accountExample } from '../common/schemas';
import { VaultAlbum, VaultMedia } from '../common/vault-album';
import { accountRead, defineOperation, upstreamData } from '../define';

export const VaultAlbumsResponse = Type.Object({
  albums: Type.Array(VaultAlbum.schema),
  aggregationData: Type.Object({ media: Type.Array(VaultMedia.schema) }),
});

export const vaultAlbums = defineOperation({
  name: 'vault-albums',
  method: 'GET',
  path: '/:accountId/vault/albums',
  summary: 'List the vault albums (standard All, Posts, Messages first, then user albums)',
  tags: ['vault'],
  ...accountRead,
  schemas: {
    params: AccountParams,
    data: Upstream(VaultAlbumsResponse),
  },
  example: { params: accountExample },
  // The platform answers every album in one call (no paging upstream), so neither does the gateway.
  run: async (_input, { call }) => {
    const raw = coerce.obj(await call('vaultAlbums'));
    return upstreamData({
      albums: coerce.arr(raw.albums).map(VaultAlbum.from),
      aggregationData: { media: coerce.arr(coerce.obj(raw.aggregationData).media).map(VaultMedia.from) },
    });
  },
});
