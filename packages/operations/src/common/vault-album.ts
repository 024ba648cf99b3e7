import { f, type RecordValue, record } from './record';

// Album times are Unix ms upstream (docs/upstream-decisions.md), like the contract: no conversion.
const Album = record({
  id: f.id(),
  accountId: f.id(),
  pos: f.number('sort position'),
  title: f.string(),
  description: f.nullableString(),
  // null for user albums: whether the platform leaves it out, sends null or sends "".
  type: f.nullableNumber('38000 All, 1000 Posts, 5000 Messages; null for user albums', { emptyIsNull: true }),
  status: f.number(),
  itemCount: f.number(),
  lastItemId: f.id(),
  version: f.number(),
  createdAt: f.timestamp(),
});

/** Vault album as listed. `lastSyncAt`/`deletedAt` appear only when the platform sends them. */
export const VaultAlbum = Album.extend({
  lastSyncAt: f.optional(f.timestamp()),
  deletedAt: f.optional(f.timestamp()),
});
export type VaultAlbum = RecordValue<typeof VaultAlbum>;

/** Vault album as the deletion answers it: both times are always there. */
export const DeletedVaultAlbum = Album.extend({ lastSyncAt: f.timestamp(), deletedAt: f.timestamp() });
export type DeletedVaultAlbum = RecordValue<typeof DeletedVaultAlbum>;

/** Where a media file is served (`locations[]`). */
const Location = record({ locationId: f.id(), location: f.string('signed CDN URL') });

/** The file fields a vault media and each of its variants both carry. */
const MediaFile = record({
  id: f.id(),
  type: f.number(),
  status: f.number(),
  mimetype: f.string(),
  flags: f.number(),
  filename: f.string(),
  location: f.string(),
  width: f.number(),
  height: f.number(),
  metadata: f.jsonText(),
  updatedAt: f.timestamp(),
});

const VaultMediaVariant = MediaFile.extend({ locations: f.array(Location) });

/** Vault media of the albums' last items (`aggregationData.media[]`). */
export const VaultMedia = MediaFile.extend({
  accountId: f.id(),
  createdAt: f.timestamp(),
  variants: f.array(VaultMediaVariant),
  variantHash: f.object(),
  locations: f.array(Location),
});
export type VaultMedia = RecordValue<typeof VaultMedia>;
