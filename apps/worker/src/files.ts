import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GatewayError } from '@cg/contract';
import type { Spool } from '@cg/media-spool';
import type { FileTransfers } from '@cg/operations';
import type { Route } from '@cg/platform-access';
import type { ProcessorContext } from '@cg/queue';

/** What the CDN answers for a link that expired, or was never signed, or names nothing. */
const LINK_GONE = new Set([403, 404, 410]);

/**
 * A job's file transfers: through the account's route (its egress proxy), each passing the account's
 * lane like a platform call (`beforeCall`). A part upload is a write; a CDN download a read.
 */
export function fileTransfers(
  spool: Spool,
  accountRoute: () => Promise<Route>,
  job: Pick<ProcessorContext, 'beforeCall' | 'afterWrite'>,
): FileTransfers {
  return {
    putPart: async (url, name, start, length) => {
      const route = await accountRoute();
      await job.beforeCall(true);
      const path = spool.path(name);
      // Made per send: a proxy that failed before forwarding is tried again with a fresh stream.
      const eTag = await route.send('uploadPart', (client) =>
        client.putPart(url, createReadStream(path, { start, end: start + length - 1 }), length),
      );
      job.afterWrite();
      return eTag;
    },
    download: async (url, name, maxBytes) => {
      const route = await accountRoute();
      await job.beforeCall(false);
      const file = await route.send('cdnFile', (client) => client.fetchFile(url));
      if (LINK_GONE.has(file.status))
        throw new GatewayError(
          'NOT_FOUND',
          'the link has expired or the file does not exist: read the media again for a fresh link',
        );
      if (file.status >= 300)
        throw new GatewayError('UPSTREAM_ERROR', `the platform's CDN answered HTTP ${file.status}`);
      const size = await spoolAtMost(file.body, spool.path(name), maxBytes);
      return { contentType: file.contentType ?? 'application/octet-stream', size };
    },
    discard: (name) => spool.remove(name),
  };
}

/** Writes a body to a spool file, refusing (413, the file removed) one longer than `maxBytes`. */
async function spoolAtMost(body: NodeJS.ReadableStream, path: string, maxBytes: number): Promise<number> {
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > maxBytes)
        done(new GatewayError('PAYLOAD_TOO_LARGE', `the file is larger than the limit of ${maxBytes} bytes`));
      else done(null, chunk);
    },
  });
  try {
    await pipeline(body, counter, createWriteStream(path));
  } catch (error) {
    await rm(path, { force: true });
    throw error;
  }
  return size;
}
