import { setTimeout as sleep } from 'node:timers/promises';
import { GatewayError } from '@cg/contract';
import { Type } from 'typebox';
import { AccountMedia } from '../chat-media-stats/operation';
import { coerce } from '../common/coerce';
import { createAccountMedia } from '../common/media-offer';
import { AccountParams, accountExample } from '../common/schemas';
import { accountCreate, defineOperation, type OperationContext } from '../define';

const { obj, arr, str, num } = coerce;

/** The vault's system album every media belongs in ("All"). */
export const ALBUM_TYPE_ALL = 38000;
/** The platform's upload status once its media exists (upstream-extended.md §1.8). */
const UPLOAD_COMPLETED = 6;
/** How long the platform may process an upload: S6 polls 90 × 1 s; the sandbox takes 200 ms. */
const PROCESSING_LIMIT_MS = 5 * 60_000;
const POLL_FIRST_MS = 250;
const POLL_MAX_MS = 5_000;
/** S6's `uploadFormData`: the web client's form inputs of a vault upload (all unset). */
const UPLOAD_FORM_DATA = {
  formInputs: [
    { type: 1001, value: 'false' },
    { type: 1002, value: 'false' },
    { type: 1003, value: '' },
    { type: 1004, value: '' },
    { type: 1005, value: '""' },
  ],
};

/** Image and video types the platform takes; anything else is refused before it is spooled. */
export const UPLOAD_TYPES: ReadonlySet<string> = new Set([
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
  'video/mp4',
  'video/quicktime',
  'video/webm',
  'video/x-m4v',
]);

/** The contract's Upload job `result`. */
export const UploadResult = Type.Object({
  mediaId: Type.String({ description: 'the vault media id: use it in the mediaIds of messages and posts' }),
  accountMedia: Type.Array(AccountMedia.schema, {
    description: 'the account-media record made for it; accountMedia[0].id is the account-media id',
  }),
});

/**
 * Internal (its route is the API's multipart `POST /{accountId}/media/upload`, which spools the
 * file and queues this): the platform's multi-step upload of the spooled file, on the account's lane,
 * every step a write. Create; each part to the presigned URL the platform answers; complete with the
 * parts' ETags; wait for processing; file the media in the vault's All album; make its account media.
 * A write never repeated: a crash leaves one upload at most, the job failed as outcome unknown.
 */
export const mediaUpload = defineOperation({
  name: 'media-upload',
  method: 'POST',
  path: '/:accountId/media/upload',
  summary: 'Internal: the platform upload of a spooled file',
  tags: ['internal'],
  ...accountCreate,
  schemas: {
    params: AccountParams,
    body: Type.Object({
      spool: Type.String({ description: 'the spool file holding the bytes' }),
      fileName: Type.String(),
      mimeType: Type.String(),
      size: Type.Integer({ minimum: 1 }),
    }),
    data: UploadResult,
  },
  example: {
    params: accountExample,
    body: { spool: 'job_8fKq2LmZ.upload', fileName: 'beach.jpg', mimeType: 'image/jpeg', size: 5_242_880 },
  },
  run: async ({ body }, context) => {
    const { call } = context;
    const mediaId = await uploadFile(body, context);
    await fileInAllAlbum(mediaId, call);
    // Free, as the vault's own media are: a message or post makes its own offer of it.
    const accountMedia = await createAccountMedia(
      { mediaIds: [mediaId] },
      context.account?.platformAccountId ?? '',
      call,
    );
    return { mediaId, accountMedia: accountMedia.map(AccountMedia.from) };
  },
});

type UploadInput = { spool: string; fileName: string; mimeType: string; size: number };

/** Create, parts, complete, processed: the new media's id. */
async function uploadFile(file: UploadInput, { call, files }: OperationContext): Promise<string> {
  const created = obj(
    await call('mediaUploadCreate', {
      body: {
        fileSize: file.size,
        mimeType: file.mimeType,
        fileName: file.fileName,
        uploadFormData: UPLOAD_FORM_DATA,
      },
    }),
  );
  const id = str(created.id);
  const partSize = num(created.partSize);
  const parts = arr(created.parts);
  if (id === '' || partSize <= 0 || parts.length !== Math.ceil(file.size / partSize))
    throw new GatewayError('UPSTREAM_ERROR', 'the platform answered the upload without its parts');
  const eTags: { index: number; eTag: string }[] = [];
  for (const part of parts) {
    const index = num(part.index);
    const start = index * partSize;
    const length = Math.min(partSize, file.size - start);
    eTags.push({ index, eTag: await files.putPart(str(part.uploadUrl), file.spool, start, length) });
  }
  const type = file.mimeType.startsWith('video/') ? 2 : 1;
  await call('mediaUploadComplete', {
    body: { id, type, partSize, status: 0, parts: eTags, waitForComplete: 0 },
  });
  // Every byte is at the platform: the file is not needed again, whatever follows.
  files.discard(file.spool);
  return processed(id, call);
}

/** Polls the upload, backing off, until the platform has made its media. */
async function processed(id: string, call: OperationContext['call']): Promise<string> {
  const deadline = Date.now() + PROCESSING_LIMIT_MS;
  for (let wait = POLL_FIRST_MS; ; wait = Math.min(wait * 2, POLL_MAX_MS)) {
    await sleep(wait);
    const upload = obj(await call('mediaUpload', { params: { id } }));
    const mediaId = str(upload.mediaId);
    if (num(upload.status) >= UPLOAD_COMPLETED && mediaId !== '') return mediaId;
    if (Date.now() + wait > deadline)
      throw new GatewayError(
        'UPSTREAM_ERROR',
        `the platform did not finish processing the upload within ${PROCESSING_LIMIT_MS / 60_000} min`,
      );
  }
}

/** Files the media in the All album, which uploads can otherwise be missing from (S11). */
async function fileInAllAlbum(mediaId: string, call: OperationContext['call']): Promise<void> {
  const vault = obj(await call('vaultAlbums', { query: { limit: 100, offset: 0 } }));
  const all = arr(vault.albums).find((album) => num(album.type) === ALBUM_TYPE_ALL);
  if (!all) throw new GatewayError('UPSTREAM_ERROR', 'the account has no All album to file the upload in');
  await call('vaultAlbumMediaAdd', { body: { albumId: str(all.id), mediaIds: [mediaId] } });
}
