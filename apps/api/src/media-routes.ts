import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { EnvelopeSchema, ErrorBodySchema, envelope, GatewayError } from '@cg/contract';
import {
  AccountParams,
  EXAMPLE_ACCOUNT_ID,
  mediaDownload,
  mediaUpload,
  type OperationDef,
  type OperationExample,
  type OperationSchemas,
  Spool,
  UPLOAD_TYPES,
  UploadResult,
} from '@cg/operations';
import type { JobState, JobView } from '@cg/queue';
import { newId } from '@cg/store';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { openOutcome } from './answers';
import { allowedCdnUrl, parseCdnUrls } from './cdn-urls';
import type { ApiContext } from './context';
import { type ConnectedAccounts, type LanedAccount, payloadOf, resolveAccount } from './operation-routes';

/** How long `POST /media/download` waits for its file before giving up (the job goes on). */
const DOWNLOAD_WAIT_MS = 5 * 60_000;
/** An unfinished job's state as an upload job shows it (a job the queue cannot place yet: waiting). */
const UPLOAD_STATES: Partial<Record<JobState, 'waiting' | 'active'>> = {
  waiting: 'waiting',
  delayed: 'waiting',
  active: 'active',
};

type Op = OperationDef<OperationSchemas>;

/** The routes' examples in the OpenAPI document (`documentAsyncAnswers`). */
export const MEDIA_EXAMPLES: Record<string, OperationExample> = {
  'media-upload': { params: { accountId: EXAMPLE_ACCOUNT_ID } },
  'media-upload-status': { params: { jobId: 'job_4Qm8ZtP2xLr6Ks0Wd1Vn3a' } },
  'media-download': {
    query: { accountId: EXAMPLE_ACCOUNT_ID },
    body: {
      cdnUrl:
        'https://cdn3.fansly.com/281764395302023168/820357346407481613.jpeg?ngsw-bypass=true&Expires=1796000000&Key-Pair-Id=K2ABCDEF&Signature=3f9a0c1e5b7d2a4c',
    },
  },
};
/** The internal operations the routes queue, in the registry's common view. */
const uploadOp = mediaUpload as unknown as Op;
const downloadOp = mediaDownload as unknown as Op;

const UploadJob = Type.Object({
  jobId: Type.String(),
  state: Type.Union(['waiting', 'active', 'completed', 'failed'].map((state) => Type.Literal(state))),
  result: Type.Union([UploadResult, Type.Null()], { description: 'set when completed' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'the reason, when failed' }),
});

/**
 * Media files: an upload is streamed into the spool and queued (`media-upload` runs the platform's
 * upload on the account's lane); its status is the job's; a download is fetched into the spool by a
 * worker through the account's egress (`media-download`) and streamed back from there. The API
 * never holds a file in memory and never calls the platform.
 */
export async function registerMediaRoutes(
  app: FastifyInstance,
  context: ApiContext,
  connected: ConnectedAccounts,
): Promise<void> {
  const spool = new Spool(context.config.MEDIA_SPOOL_DIR).ensure();
  const cdn = parseCdnUrls(context.config.MEDIA_CDN_URLS);
  const maxBytes = context.config.MEDIA_MAX_BYTES;
  await app.register(multipart, { limits: { fileSize: maxBytes, files: 1, fields: 10, parts: 11 } });

  app.post(
    '/:accountId/media/upload',
    {
      schema: {
        operationId: 'media-upload',
        summary: 'Upload an image or video into the account’s vault (asynchronous)',
        description:
          'multipart/form-data with one part named file. Answered at once with data.jobId; poll ' +
          `GET /media/upload/{jobId}/status about once a second. At most ${maxBytes} bytes (413); only ` +
          `${[...UPLOAD_TYPES].join(', ')} (400). A write not retried: after a failure, look in the vault before uploading again.`,
        tags: ['media'],
        security: [{ apiKey: [] }],
        params: AccountParams,
        consumes: ['multipart/form-data'],
        response: {
          201: EnvelopeSchema(Type.Object({ jobId: Type.String() })),
          '4xx': ErrorBodySchema,
          '5xx': ErrorBodySchema,
        },
      },
    },
    async (request, reply) => {
      const input = { params: request.params };
      const account = await laned(uploadOp, request, input, context, connected);
      if (!request.isMultipart())
        throw new GatewayError('BAD_REQUEST', 'send multipart/form-data with the file in a part named file');
      const tooLarge = Number(request.headers['content-length'] ?? 0) > maxBytes + 64 * 1024;
      if (tooLarge) throw payloadTooLarge(maxBytes);
      const jobId = newId('job');
      const name = Spool.nameOf(jobId, 'upload');
      const file = await spoolUpload(request, spool.path(name), maxBytes);
      try {
        await context.queue.submit(
          payloadOf(uploadOp, request, { ...input, body: { spool: name, ...file } }, account, context, jobId),
          0,
          jobId,
        );
      } catch (error) {
        spool.remove(name);
        throw error;
      }
      return reply
        .status(201)
        .send(envelope({ statusCode: 201, message: 'Upload started', data: { jobId } }));
    },
  );

  app.get(
    '/media/upload/:jobId/status',
    {
      schema: {
        operationId: 'media-upload-status',
        summary: 'An upload job’s state and, once completed, its media',
        tags: ['media'],
        security: [{ apiKey: [] }],
        params: Type.Object({ jobId: Type.String({ pattern: '^job_[A-Za-z0-9]{1,64}$' }) }),
        response: { 200: EnvelopeSchema(UploadJob), '4xx': ErrorBodySchema, '5xx': ErrorBodySchema },
      },
    },
    async (request, reply) => {
      const { jobId } = request.params as { jobId: string };
      const view = await context.queue.get(jobId);
      if (!view || view.payload.tenantId !== request.tenantId || view.payload.op !== mediaUpload.name)
        throw new GatewayError(
          'NOT_FOUND',
          `upload job ${jobId} not found (finished jobs are kept 24 hours)`,
        );
      return reply.send(envelope({ statusCode: 200, message: 'Success', data: uploadJob(view, context) }));
    },
  );

  app.post(
    '/media/download',
    {
      schema: {
        operationId: 'media-download',
        summary: 'Stream a file from a signed platform CDN link',
        description:
          'Answers the file’s bytes with its Content-Type, fetched through the outbound address of the ' +
          'account named by accountId (default: any connected account of the key), since some links ' +
          'open only from the address that read them. Only the platform’s CDN hosts; links last about five hours.',
        tags: ['media'],
        security: [{ apiKey: [] }],
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
      },
    },
    async (request, reply) => {
      const { cdnUrl } = request.body as { cdnUrl: string };
      if (!allowedCdnUrl(cdnUrl, cdn))
        throw new GatewayError('BAD_REQUEST', "cdnUrl is not a link on the platform's CDN hosts");
      const input = { params: {}, query: request.query };
      const account = await laned(downloadOp, request, input, context, connected);
      const jobId = newId('job');
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
      return streamSpooled(reply, spool.path(name), contentType, size);
    },
  );
}

async function laned(
  op: Op,
  request: FastifyRequest,
  input: { params: unknown; query?: unknown },
  context: ApiContext,
  connected: ConnectedAccounts,
): Promise<LanedAccount> {
  const account = await resolveAccount(op, request, input, context, connected);
  if (!account) throw new GatewayError('INTERNAL', `${op.name} needs an account`);
  return account;
}

const payloadTooLarge = (maxBytes: number) =>
  new GatewayError('PAYLOAD_TOO_LARGE', `the file is larger than this gateway's limit of ${maxBytes} bytes`);

/**
 * Streams the request's file part to `path`: 400 without a part named file, for a type the platform
 * does not take or an empty file; 413 as soon as it passes the limit. A refused file is removed.
 */
async function spoolUpload(
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
  try {
    await pipeline(part.file, createWriteStream(path));
    if (part.file.truncated) throw payloadTooLarge(maxBytes);
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

/** The upload job as the contract shows it. */
function uploadJob(view: JobView, { keyring }: Pick<ApiContext, 'keyring'>) {
  const base = { jobId: view.id, result: null, error: null };
  if (view.state === 'completed' && view.outcome)
    return { ...base, state: 'completed', result: openOutcome(view.outcome, view.id, keyring).data };
  if (view.state === 'failed')
    return { ...base, state: 'failed', error: GatewayError.fromWire(view.failedReason).message };
  return { ...base, state: UPLOAD_STATES[view.state] ?? 'waiting' };
}

/** Sends a spooled download and removes it once sent (or the caller went away). */
function streamSpooled(reply: FastifyReply, path: string, contentType: string, size: number): FastifyReply {
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
