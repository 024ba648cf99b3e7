import { type Static, Type } from 'typebox';
import { coerce, ifPresent, jsonText, type Raw, toLocations } from './coerce';
import { Nullable } from './schemas';

const { obj, arr, str, num, nullableStr } = coerce;

const albumFields = {
  id: Type.String(),
  accountId: Type.String(),
  pos: Type.Number({ description: 'sort position' }),
  title: Type.String(),
  description: Nullable(Type.String()),
  type: Nullable(Type.Number({ description: '38000 All, 1000 Posts, 5000 Messages; null for user albums' })),
  status: Type.Number(),
  itemCount: Type.Number(),
  lastItemId: Type.String(),
  version: Type.Number(),
  createdAt: Type.Number({ description: 'Unix ms' }),
};

/** Vault album as listed. `lastSyncAt`/`deletedAt` appear only when the platform sends them. */
export const VaultAlbum = Type.Object({
  ...albumFields,
  lastSyncAt: Type.Optional(Type.Number({ description: 'Unix ms' })),
  deletedAt: Type.Optional(Type.Number({ description: 'Unix ms' })),
});
export type VaultAlbum = Static<typeof VaultAlbum>;

/** Vault album as the deletion answers it: both times are always there. */
export const DeletedVaultAlbum = Type.Object({
  ...albumFields,
  lastSyncAt: Type.Number({ description: 'Unix ms' }),
  deletedAt: Type.Number({ description: 'Unix ms' }),
});
export type DeletedVaultAlbum = Static<typeof DeletedVaultAlbum>;

const Location = Type.Object({
  locationId: Type.String(),
  location: Type.String({ description: 'signed CDN URL' }),
});

/** The file fields a vault media and each of its variants both carry. */
const MediaFile = {
  id: Type.String(),
  type: Type.Number(),
  status: Type.Number(),
  mimetype: Type.String(),
  flags: Type.Number(),
  filename: Type.String(),
  location: Type.String(),
  width: Type.Number(),
  height: Type.Number(),
  metadata: Type.String({ description: 'JSON text' }),
  updatedAt: Type.Number({ description: 'Unix ms' }),
};

const VaultMediaVariant = Type.Object({ ...MediaFile, locations: Type.Array(Location) });

/** Vault media of the albums' last items (`aggregationData.media[]`). */
export const VaultMedia = Type.Object({
  ...MediaFile,
  accountId: Type.String(),
  createdAt: Type.Number({ description: 'Unix ms' }),
  variants: Type.Array(VaultMediaVariant),
  variantHash: Type.Record(Type.String(), Type.Unknown()),
  locations: Type.Array(Location),
});
export type VaultMedia = Static<typeof VaultMedia>;

/** The album type, null for user albums: whether the platform leaves it out, sends null or sends "". */
const albumType = (value: unknown): number | null => (value === '' ? null : coerce.nullableNum(value));

function albumBase(raw: Raw) {
  // Album times are Unix ms upstream (docs/upstream-decisions.md), like the contract: no conversion.
  return {
    id: str(raw.id),
    accountId: str(raw.accountId),
    pos: num(raw.pos),
    title: str(raw.title),
    description: nullableStr(raw.description),
    type: albumType(raw.type),
    status: num(raw.status),
    itemCount: num(raw.itemCount),
    lastItemId: str(raw.lastItemId),
    version: num(raw.version),
    createdAt: num(raw.createdAt),
  };
}

export function toVaultAlbum(value: unknown): VaultAlbum {
  const raw = obj(value);
  return {
    ...albumBase(raw),
    ...ifPresent('lastSyncAt', raw.lastSyncAt, num),
    ...ifPresent('deletedAt', raw.deletedAt, num),
  };
}

export function toDeletedVaultAlbum(value: unknown): DeletedVaultAlbum {
  const raw = obj(value);
  return { ...albumBase(raw), lastSyncAt: num(raw.lastSyncAt), deletedAt: num(raw.deletedAt) };
}

export function toVaultMedia(value: unknown): VaultMedia {
  const raw = obj(value);
  return {
    id: str(raw.id),
    type: num(raw.type),
    status: num(raw.status),
    accountId: str(raw.accountId),
    mimetype: str(raw.mimetype),
    flags: num(raw.flags),
    filename: str(raw.filename),
    location: str(raw.location),
    width: num(raw.width),
    height: num(raw.height),
    metadata: jsonText(raw.metadata),
    updatedAt: num(raw.updatedAt),
    createdAt: num(raw.createdAt),
    variants: arr(raw.variants).map((v) => ({
      id: str(v.id),
      type: num(v.type),
      status: num(v.status),
      mimetype: str(v.mimetype),
      flags: num(v.flags),
      filename: str(v.filename),
      location: str(v.location),
      width: num(v.width),
      height: num(v.height),
      metadata: jsonText(v.metadata),
      updatedAt: num(v.updatedAt),
      locations: toLocations(v.locations),
    })),
    variantHash: obj(raw.variantHash),
    locations: toLocations(raw.locations),
  };
}
