import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { invalidField, notAllowed, notFound } from './errors';
import { Kind, type RuntimeIds } from './ids';
import { MEDIA_IMAGE, MEDIA_VIDEO } from './world/creator';
import type { World } from './world/world';

/** Where the media host takes part uploads (presigned URLs, like S3's): `<origin>/_upload/<id>/<n>`. */
export const UPLOAD_PART_PATH = '/_upload';

/** The platform's upload statuses (upstream-extended.md §1.8): 1 created … 5 processing, 6 completed. */
export const UploadStatus = { created: 1, uploading: 2, processing: 5, completed: 6 } as const;

export interface UploadRecord {
  id: string;
  creator: number;
  type: number;
  fileName: string;
  mimeType: string;
  fileSize: number;
  partSize: number;
  status: number;
  /** ETag of each part received, by index. */
  eTags: Map<number, string>;
  mediaId: string | null;
  createdAt: number;
}

/** What an upload looks like on the wire (`GET /media/upload/{id}`). */
export function uploadView(upload: UploadRecord) {
  return {
    id: upload.id,
    type: upload.type,
    status: upload.status,
    fileName: upload.fileName,
    mimeType: upload.mimeType,
    fileSize: upload.fileSize,
    partSize: upload.partSize,
    mediaId: upload.mediaId,
    createdAt: upload.createdAt,
  };
}

const partCount = (upload: UploadRecord) => Math.max(1, Math.ceil(upload.fileSize / upload.partSize));

/**
 * The sandbox's media host: uploads made in parts to presigned URLs, completed, processed for a
 * while, then a vault media of the creator (`CreatorWorld.addUpload`). Bytes live in a temporary
 * folder, never in memory; the CDN serves them by their media's path.
 */
export class UploadStore {
  readonly #uploads = new Map<string, UploadRecord>();
  /** The file of each uploaded media, by its CDN path. */
  readonly #files = new Map<string, { file: string; mimeType: string }>();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #secret: string;
  #dir: string | null = null;

  constructor(
    private readonly world: World,
    private readonly ids: RuntimeIds,
    seed: number,
  ) {
    this.#secret = `sandbox-upload-${seed}`;
  }

  /** `POST /media/upload/create {fileSize, mimeType, fileName}`: the upload and its part URLs. */
  create(creator: number, body: Record<string, unknown>, partSize: number, origin: string, now: number) {
    const { fileSize, mimeType, fileName } = body;
    if (typeof fileSize !== 'number' || !Number.isInteger(fileSize) || fileSize <= 0)
      throw invalidField('fileSize');
    if (typeof mimeType !== 'string' || !/^(image|video)\/[\w.+-]+$/.test(mimeType))
      throw invalidField('mimeType');
    if (typeof fileName !== 'string' || fileName === '' || fileName.length > 255)
      throw invalidField('fileName');
    const upload: UploadRecord = {
      id: this.ids.next(Kind.media),
      creator,
      type: mimeType.startsWith('video/') ? MEDIA_VIDEO : MEDIA_IMAGE,
      fileName,
      mimeType,
      fileSize,
      partSize,
      status: UploadStatus.created,
      eTags: new Map(),
      mediaId: null,
      createdAt: now,
    };
    this.#uploads.set(upload.id, upload);
    const parts = Array.from({ length: partCount(upload) }, (_, index) => ({
      index,
      uploadUrl: `${origin}${UPLOAD_PART_PATH}/${upload.id}/${index}?X-Amz-Signature=${this.#sign(upload.id, index)}`,
    }));
    return { id: upload.id, type: upload.type, partSize, parts };
  }

  /** A presigned part PUT: stored, answered with its ETag (quotes included). Null: no such URL. */
  async putPart(id: string, index: number, signature: string, body: Readable): Promise<string | null> {
    const upload = this.#uploads.get(id);
    if (!upload || !this.#validSignature(id, index, signature) || index >= partCount(upload)) return null;
    if (upload.status > UploadStatus.uploading) throw notAllowed('upload already completed');
    const file = this.#partFile(id, index);
    const hash = createHash('md5');
    body.on('data', (chunk: Buffer) => hash.update(chunk));
    await pipeline(body, createWriteStream(file));
    const expected =
      index < partCount(upload) - 1 ? upload.partSize : upload.fileSize - upload.partSize * index;
    if ((await stat(file)).size !== expected) throw invalidField('part size');
    upload.status = UploadStatus.uploading;
    const eTag = `"${hash.digest('hex')}"`;
    upload.eTags.set(index, eTag);
    return eTag;
  }

  /**
   * `POST /media/upload/complete {id, parts:[{index, eTag}]}`: every part, each with its ETag, or
   * 400. The media exists `processingMs` later.
   */
  async complete(creator: number, body: Record<string, unknown>, processingMs: number) {
    const upload = this.#owned(creator, body.id);
    if (upload.status >= UploadStatus.processing) throw notAllowed('upload already completed');
    const parts = body.parts;
    if (!Array.isArray(parts) || parts.length !== partCount(upload)) throw invalidField('parts');
    for (const part of parts as { index?: unknown; eTag?: unknown }[]) {
      if (typeof part?.index !== 'number' || upload.eTags.get(part.index) !== part.eTag)
        throw invalidField('parts');
    }
    upload.status = UploadStatus.processing;
    const file = this.#file(upload.id);
    await pipeline(this.#parts(upload), createWriteStream(file));
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.#finish(upload, file);
    }, processingMs);
    this.#timers.add(timer);
    return uploadView(upload);
  }

  /** The upload's parts' bytes in order, each part's file removed once read. */
  async *#parts(upload: UploadRecord): AsyncGenerator<Buffer> {
    for (let index = 0; index < partCount(upload); index++) {
      yield* createReadStream(this.#partFile(upload.id, index));
      rmSync(this.#partFile(upload.id, index), { force: true });
    }
  }

  /** `GET /media/upload/{id}`: the creator's upload. */
  get(creator: number, id: unknown) {
    return uploadView(this.#owned(creator, id));
  }

  /** Whose upload `id` is. */
  creatorOf(id: string): number | undefined {
    return this.#uploads.get(id)?.creator;
  }

  /** The stored file of an uploaded media's CDN path, if that is one. */
  fileOf(path: string): { file: string; mimeType: string } | undefined {
    return this.#files.get(path);
  }

  /** Every upload of a creator, for the control surface. */
  of(creator: number): UploadRecord[] {
    return [...this.#uploads.values()].filter((upload) => upload.creator === creator);
  }

  close(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    if (this.#dir !== null) rmSync(this.#dir, { recursive: true, force: true });
    this.#dir = null;
  }

  #finish(upload: UploadRecord, file: string): void {
    const world = this.world.creator(upload.creator);
    const info = world.addUpload(this.ids.next(Kind.media), Date.now(), upload.type, {
      fileName: upload.fileName,
      mimeType: upload.mimeType,
      size: upload.fileSize,
    });
    this.#files.set(world.mediaPath(info), { file, mimeType: upload.mimeType });
    upload.mediaId = info.id;
    upload.status = UploadStatus.completed;
  }

  #owned(creator: number, id: unknown): UploadRecord {
    if (typeof id !== 'string' || id === '') throw invalidField('id');
    const upload = this.#uploads.get(id);
    if (!upload || upload.creator !== creator) throw notFound('upload');
    return upload;
  }

  #folder(): string {
    this.#dir ??= mkdtempSync(join(tmpdir(), 'sandbox-uploads-'));
    return this.#dir;
  }

  #file(id: string): string {
    return join(this.#folder(), id);
  }

  #partFile(id: string, index: number): string {
    return join(this.#folder(), `${id}.part${index}`);
  }

  #sign(id: string, index: number): string {
    return createHmac('sha256', this.#secret).update(`${id}\n${index}`).digest('hex').slice(0, 32);
  }

  #validSignature(id: string, index: number, signature: string): boolean {
    const expected = Buffer.from(this.#sign(id, index));
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
