import { GatewayError } from '@cg/contract';
import { Spool } from '@cg/media-spool';
import { AccountParams, EXAMPLE_ACCOUNT_ID, mediaUpload, UPLOAD_TYPES } from '@cg/operations';
import { newId } from '@cg/store';
import { Type } from 'typebox';
import { type Operation, payloadOf, requiredAccount } from '../../submit';
import { countMedia } from '../../usage';
import type { ApiRoute } from '../route';
import { answers, ok, routeSchema } from '../schema';
import type { MediaDeps } from './media-deps';
import { payloadTooLarge, spoolUpload } from './spool-files';

/** The internal operation the route queues, in the registry's common view. */
const uploadOp = mediaUpload as unknown as Operation;

/**
 * `POST /{accountId}/media/upload`: the file is streamed into the spool and queued (`media-upload`
 * runs the platform's upload on the account's lane); the API never holds it in memory.
 */
export const uploadMedia: ApiRoute<MediaDeps> = {
  name: 'media-upload',
  method: 'POST',
  url: '/:accountId/media/upload',
  access: 'write',
  schema: ({ maxBytes }) =>
    routeSchema('Upload an image or video into the account’s vault (asynchronous)', 'media', {
      description:
        'multipart/form-data with one part named file. Answered at once with data.jobId; poll ' +
        `GET /media/upload/{jobId}/status about once a second. At most ${maxBytes} bytes (413); only ` +
        `${[...UPLOAD_TYPES].join(', ')} (400). A write not retried: after a failure, look in the vault before uploading again.`,
      params: AccountParams,
      consumes: ['multipart/form-data'],
      response: answers(201, Type.Object({ jobId: Type.String() })),
    }),
  example: { params: { accountId: EXAMPLE_ACCOUNT_ID } },
  async handler(request, reply, { context, connected, spool, maxBytes }) {
    const input = { params: request.params };
    const account = await requiredAccount(uploadOp, request, input, context, connected);
    if (!request.isMultipart())
      throw new GatewayError('BAD_REQUEST', 'send multipart/form-data with the file in a part named file');
    const tooLarge = Number(request.headers['content-length'] ?? 0) > maxBytes + 64 * 1024;
    if (tooLarge) throw payloadTooLarge(maxBytes);
    const jobId = newId('job');
    const name = Spool.nameOf(jobId, 'upload');
    const file = await spoolUpload(request, spool.path(name), maxBytes);
    countMedia(context, request, 'mediaBytesUp', file.size);
    request.jobId = jobId;
    const body = { spool: name, ...file };
    try {
      await context.queue.submit(
        payloadOf(uploadOp, request, { ...input, body }, account, context, jobId),
        0,
        jobId,
      );
    } catch (error) {
      spool.remove(name);
      throw error;
    }
    return reply.status(201).send(ok(201, 'Upload started', { jobId }));
  },
};
