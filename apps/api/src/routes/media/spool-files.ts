import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { GatewayError } from '@cg/contract';
import { UPLOAD_TYPES } from '@cg/operations';
import type { FastifyReply, FastifyRequest } from 'fastify';

// A media file's way through the spool: an upload's part written there, a download streamed from it.

export const payloadTooLarge = (maxBytes: number) =>
  new GatewayError('PAYLOAD_TOO_LARGE', `the file is larger than this gateway's limit of ${maxBytes} bytes`);

/**
 * Streams the request's file part to `path`: 400 without a part named file, for a type the platform
 * does not take or an empty file; 413 as soon as it passes the limit. A refused file is removed.
 */
export async function spoolUpload(
  request: FastifyRequest,
  path: string,
  maxBytes: number,
): Promise<{ fileName: string; mimeType: string; size: number }> {
  const part = await request.file().catch(() => undefined);
  if (part?.fieldname !== 'file') throw new GatewayError('BAD_REQUEST', 'the upload has no part named file');
  const mimeType = part.mimetype.toLowerCase();
  if (!UPLOAD_TYPES.has(mimeType)) {
    part.file.resume();
    throw new GatewayError(
      'BAD_REQUEST',
      `file type ${mimeType} is not taken; send one of ${[...UPLOAD_TYPES].join(', ')}`,
    );
  }
  // Busboy stops filling the part at the limit, then would read the rest of the body to discard it:
  // the part fails as it passes the limit instead (or at once if it already has), so the 413 goes
  // out while the body is still arriving, and the connection closes (connections.ts).
  const cutOff = () => part.file.destroy(payloadTooLarge(maxBytes));
  if (part.file.truncated) cutOff();
  else part.file.once('limit', cutOff);
  try {
    await pipeline(part.file, createWriteStream(path));
    const size = part.file.bytesRead;
    if (size === 0) throw new GatewayError('BAD_REQUEST', 'the file is empty');
    return { fileName: safeFileName(part.filename), mimeType, size };
  } catch (error) {
    await rm(path, { force: true });
    throw error;
  }
}

/** The file's own name, as a platform upload takes one: its last path segment, printable, short. */
function safeFileName(name: string | undefined): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  const printable = base.replace(/[\p{Cc}"]/gu, '').slice(-200);
  return printable === '' ? 'upload' : printable;
}

/** Sends a spooled download and removes it once sent (or the caller went away). */
export function streamSpooled(
  reply: FastifyReply,
  path: string,
  contentType: string,
  size: number,
): FastifyReply {
  const stream = createReadStream(path);
  const remove = () => void rm(path, { force: true });
  stream.once('close', remove);
  reply.raw.once('close', () => stream.destroy());
  return reply
    .status(200)
    .header('content-type', contentType)
    .header('content-length', String(size))
    .send(stream);
}
