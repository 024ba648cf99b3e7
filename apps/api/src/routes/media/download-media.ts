import { ErrorBodySchema, GatewayError } from '@cg/contract';
import { Spool } from '@cg/media-spool';
import { EXAMPLE_ACCOUNT_ID, mediaDownload } from '@cg/operations';
import { newId } from '@cg/store';
import { Type } from 'typebox';
import { openOutcome } from '../../answers';
import { allowedCdnUrl } from '../../cdn-urls';
import { type Operation, payloadOf, requiredAccount } from '../../submit';
import { countMedia } from '../../usage';
import type { ApiRoute } from '../route';
import { routeSchema } from '../schema';
import type { MediaDeps } from './media-deps';
import { streamSpooled } from './spool-files';

/** How long the route waits for its file before giving up (the job goes on). */
const DOWNLOAD_WAIT_MS = 5 * 60_000;
/** The internal operation the route queues, in the registry's common view. */
const downloadOp = mediaDownload as unknown as Operation;

/**
 * `POST /media/download`: a worker fetches the file into the spool through the account's egress
 * (`media-download`), and it is streamed back from there; the API never calls the platform.
 */
export const downloadMedia: ApiRoute<MediaDeps> = {
  name: 'media-download',
  method: 'POST',
  url: '/media/download',
  access: 'write',
  schema: routeSchema('Stream a file from a signed platform CDN link', 'media', {
    description:
      'Answers the file’s bytes with its Content-Type, fetched through the outbound address of the ' +
      'account named by accountId (default: any connected account of the key), since some links ' +
      'open only from the address that read them. Only the platform’s CDN hosts; links last about five hours.',
    querystring: Type.Object({
      accountId: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 100,
          description: 'the account whose response carried the link',
        }),
      ),
    }),
    body: Type.Object({ cdnUrl: Type.String({ minLength: 1, maxLength: 4096 }) }),
    response: {
      200: { description: 'the file’s bytes', content: { 'application/octet-stream': { schema: {} } } },
      '4xx': ErrorBodySchema,
      '5xx': ErrorBodySchema,
    },
  }),
  example: {
    query: { accountId: EXAMPLE_ACCOUNT_ID },
    body: {
      cdnUrl:
        'https://cdn3.fansly.com/281764395302023168/820357346407481613.jpeg?ngsw-bypass=true&Expires=1796000000&Key-Pair-Id=K2ABCDEF&Signature=3f9a0c1e5b7d2a4c',
    },
  },
  async handler(request, reply, { context, connected, spool, cdn, maxBytes }) {
    const { cdnUrl } = request.body as { cdnUrl: string };
    if (!allowedCdnUrl(cdnUrl, cdn))
      throw new GatewayError('BAD_REQUEST', "cdnUrl is not a link on the platform's CDN hosts");
    const input = { params: {}, query: request.query };
    const account = await requiredAccount(downloadOp, request, input, context, connected);
    const jobId = newId('job');
    request.jobId = jobId;
    const name = Spool.nameOf(jobId, 'download');
    const body = { cdnUrl, spool: name, maxBytes };
    const { result } = await context.queue.submit(
      payloadOf(downloadOp, request, { ...input, body }, account, context, jobId),
      DOWNLOAD_WAIT_MS,
      jobId,
    );
    if (result.state === 'failed') throw GatewayError.fromWire(result.failedReason);
    if (result.state !== 'completed')
      throw new GatewayError('UPSTREAM_UNAVAILABLE', 'the CDN is slow to answer; try again', 30);
    const { data } = openOutcome(result.outcome, jobId, context.keyring);
    const { contentType, size } = data as { contentType: string; size: number };
    countMedia(context, request, 'mediaBytesDown', size);
    return streamSpooled(reply, spool.path(name), contentType, size);
  },
};
