import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SimCore } from './core';
import { SimError } from './errors';
import { UPLOAD_PART_PATH } from './uploads';
import { CDN_PATH } from './world/cdn-links';

const CONTENT_TYPES: Record<string, string> = {
  jpeg: 'image/jpeg',
  jpg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
  m3u8: 'application/vnd.apple.mpegurl',
};

/**
 * The sandbox's hosts outside the API, on its own port: the presigned part URLs of uploads (S3 on the
 * platform) and the CDN of signed media links (CloudFront on the platform). Neither takes the
 * platform's headers, and both answer like those services: 403 for a link that is not valid.
 */
export function registerMediaHosts(app: FastifyInstance, core: SimCore): void {
  app.register(async (scope) => {
    // Parts are raw bytes of any type, streamed to disk, whatever their size.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    scope.put(`${UPLOAD_PART_PATH}/:id/:index`, (request, reply) => putPart(core, request, reply));
  });
  app.get(`${CDN_PATH}/*`, (request, reply) => serveCdn(core, request, reply));
}

async function putPart(core: SimCore, request: FastifyRequest, reply: FastifyReply) {
  const { id, index } = request.params as { id: string; index: string };
  const signature = (request.query as Record<string, string | undefined>)['X-Amz-Signature'] ?? '';
  const body = (request.body ?? request.raw) as Readable;
  const creator = core.uploads.creatorOf(id);
  if (creator !== undefined) core.observationOf(creator).request(`PUT ${UPLOAD_PART_PATH}`, request.ip);
  try {
    const eTag = Number.isInteger(Number(index))
      ? await core.uploads.putPart(id, Number(index), signature, body)
      : null;
    if (eTag === null) return reply.code(403).send('SignatureDoesNotMatch');
    return reply.header('etag', eTag).code(200).send();
  } catch (error) {
    if (error instanceof SimError) return reply.code(400).send(error.details);
    throw error;
  }
}

async function serveCdn(core: SimCore, request: FastifyRequest, reply: FastifyReply) {
  const url = new URL(request.url, 'http://cdn');
  const path = url.pathname.slice(CDN_PATH.length);
  const query = url.searchParams;
  const valid = core.world.cdn.valid(
    path,
    query.get('Expires') ?? undefined,
    query.get('Signature') ?? undefined,
    Date.now(),
  );
  // Attributed to the creator whose media the path names (`/<accountId>/<file>`), like API calls.
  const owner = core.resolveCreator(path.split('/')[1] ?? '');
  if (owner) core.observationOf(owner.creator).request(`GET ${CDN_PATH}`, request.ip);
  if (!valid) return reply.code(403).type('text/plain').send('AccessDenied');
  const uploaded = core.uploads.fileOf(path);
  if (uploaded) return reply.type(uploaded.mimeType).send(createReadStream(uploaded.file));
  const extension = /\.([a-z0-9]+)$/.exec(path)?.[1] ?? '';
  return reply.type(CONTENT_TYPES[extension] ?? 'application/octet-stream').send(seededBytes(path));
}

/** The bytes of a seeded media file: 16 to 64 KiB, the same for a path every time. */
function seededBytes(path: string): Buffer {
  const seed = createHash('sha256').update(path).digest();
  const size = 16_384 + (seed.readUInt32BE(0) % 49_152);
  const out = Buffer.alloc(size);
  for (let offset = 0, block = 0; offset < size; offset += 32, block++) {
    createHash('sha256').update(seed).update(String(block)).digest().copy(out, offset);
  }
  return out;
}
