import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { UploadResult } from '@cg/operations';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, expectBadRequest, expectError, expectNotFound } from '../support/assert';
import { connectAccount } from '../support/common';
import { eventually } from '../support/processes';
import { simFixture, simJson } from '../support/sim';
import { gw, startStack, type TestStack } from '../support/stack';

const MB = 1024 * 1024;
const LIMIT = 70 * MB;

let stack: TestStack;
let accountId: string;
let chatId: string;

beforeAll(async () => {
  stack = await startStack({ env: { MEDIA_MAX_BYTES: String(LIMIT), MEDIA_SPOOL_SWEEP_MS: '500' } });
  accountId = await connectAccount(stack, 'creator_demo');
  chatId = (await simFixture(stack, 'creator_demo')).chatIds[0];
});
afterAll(async () => {
  await stack?.stop();
});

/** A multipart upload of `bytes` as `file`, straight to the API. */
async function upload(
  bytes: Buffer,
  type: string,
  name: string,
  options: { key?: string; field?: string; account?: string } = {},
) {
  const form = new FormData();
  form.append(options.field ?? 'file', new Blob([bytes], { type }), name);
  const response = await fetch(`${stack.apiUrl}/api/fansly/${options.account ?? accountId}/media/upload`, {
    method: 'POST',
    headers: { 'x-api-key': options.key ?? stack.keys.t1 },
    body: form,
  });
  return { status: response.status, body: (await response.json()) as any };
}

async function status(jobId: string, key = stack.keys.t1) {
  return gw(stack, 'GET', `/media/upload/${jobId}/status`, { key });
}

/** Polls the upload job until it ends, as a caller would, once a second at most. */
async function finalState(jobId: string) {
  return eventually(
    async () => {
      const answer = await status(jobId);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ statusCode: 200, data: { jobId } });
      const job = answer.body.data;
      expect(['waiting', 'active', 'completed', 'failed']).toContain(job.state);
      return job.state === 'completed' || job.state === 'failed' ? job : undefined;
    },
    60_000,
    'upload finished',
  );
}

const spoolFiles = () =>
  existsSync(stack.env.MEDIA_SPOOL_DIR ?? '') ? readdirSync(stack.env.MEDIA_SPOOL_DIR ?? '') : [];

const sha256 = (bytes: Buffer | ArrayBuffer) =>
  createHash('sha256')
    .update(Buffer.from(bytes as ArrayBuffer))
    .digest('hex');

describe('POST /{accountId}/media/upload and GET /media/upload/{jobId}/status', () => {
  it('uploads a 5 MB image to completed; its mediaId serves a post and a message', async () => {
    const image = randomBytes(5 * MB);
    const started = await upload(image, 'image/jpeg', 'beach.jpg');
    expect(started.status).toBe(201);
    expect(started.body.data).toEqual({ jobId: expect.stringMatching(/^job_/) });
    const job = await finalState(started.body.data.jobId);
    expect(job.error).toBeNull();
    expect(job.state).toBe('completed');
    expect(errorsOf(UploadResult, job.result)).toEqual([]);
    const { mediaId, accountMedia } = job.result;
    expect(accountMedia[0].media.id).toBe(mediaId);

    // The platform holds exactly those bytes, filed in the vault's All album.
    const sim = await simJson(stack, '/_sim/uploads?account=creator_demo');
    const made = sim.uploads.filter((u: { mediaId: string }) => u.mediaId === mediaId);
    expect(made).toHaveLength(1);
    expect(made[0].fileSize).toBe(image.length);
    const cdnUrl = accountMedia[0].media.locations[0].location;
    expect(sha256(await (await fetch(cdnUrl)).arrayBuffer())).toBe(sha256(image));
    const albums = await gw(stack, 'GET', `/${accountId}/vault/albums`);
    const all = albums.body.data.data.response.albums.find((a: { type: number }) => a.type === 38000);
    expect(all.lastItemId).toBe(mediaId);
    const listed = await gw(stack, 'GET', `/${accountId}/vault/albums/${all.id}/media`);
    expect(listed.body.data.data.response.media[0].mediaId).toBe(mediaId);

    const post = await gw(stack, 'POST', `/${accountId}/posts`, {
      body: { content: 'new', mediaIds: [mediaId] },
    });
    expect(post.body).toMatchObject({ statusCode: 201 });
    const message = await gw(stack, 'POST', `/${accountId}/chats/${chatId}/messages`, {
      body: { content: 'for you', mediaIds: [mediaId] },
    });
    expect(message.body).toMatchObject({ statusCode: 201 });
    expect(spoolFiles()).toEqual([]);
  });

  it('uploads a 60 MB video in three parts, byte for byte', async () => {
    const video = randomBytes(60 * MB);
    const started = await upload(video, 'video/mp4', 'clip.mp4');
    expect(started.status).toBe(201);
    const job = await finalState(started.body.data.jobId);
    expect(job.state).toBe('completed');
    const sim = await simJson(stack, '/_sim/uploads?account=creator_demo');
    const made = sim.uploads.find((u: { mediaId: string }) => u.mediaId === job.result.mediaId);
    expect(made.fileSize).toBe(video.length);
    // 20 MiB parts: three PUTs to the presigned URLs.
    expect(Math.ceil(video.length / made.partSize)).toBe(3);
    const cdnUrl = job.result.accountMedia[0].media.locations[0].location;
    expect(sha256(await (await fetch(cdnUrl)).arrayBuffer())).toBe(sha256(video));
    await eventually(async () => (spoolFiles().length === 0 ? true : undefined), 5_000, 'spool empty');
  });

  it('refuses a file over the limit with 413 before spooling it whole, and keeps nothing', async () => {
    const tooBig = await upload(Buffer.alloc(LIMIT + MB), 'video/mp4', 'big.mp4');
    expectError(tooBig, 413, 'PAYLOAD_TOO_LARGE', 'limit');
    expect(spoolFiles()).toEqual([]);
  });

  it('answers 400 for a wrong part, an empty file or a type the platform does not take', async () => {
    expectBadRequest(await upload(Buffer.from('x'), 'image/jpeg', 'a.jpg', { field: 'photo' }), 'file');
    expectBadRequest(await upload(Buffer.alloc(0), 'image/jpeg', 'a.jpg'), 'empty');
    expectBadRequest(await upload(Buffer.from('%PDF'), 'application/pdf', 'a.pdf'), 'application/pdf');
    const json = await gw(stack, 'POST', `/${accountId}/media/upload`, { body: { file: 'x' } });
    expectBadRequest(json, 'multipart');
    expect(spoolFiles()).toEqual([]);
  });

  it('answers 404 for another tenant’s account and job, and an unknown job', async () => {
    expectNotFound(await upload(Buffer.from('x'), 'image/jpeg', 'a.jpg', { key: stack.keys.t2 }));
    const started = await upload(randomBytes(1024), 'image/png', 'dot.png');
    expectNotFound(await status(started.body.data.jobId, stack.keys.t2));
    expectNotFound(await status('job_doesnotexist'));
    await finalState(started.body.data.jobId);
  });
});

describe('POST /media/download', () => {
  it('streams a media file back byte for byte with its type', async () => {
    const albums = await gw(stack, 'GET', `/${accountId}/vault/albums`);
    const media = albums.body.data.data.response.aggregationData.media[0];
    const cdnUrl = media.locations[0].location;
    const direct = Buffer.from(await (await fetch(cdnUrl)).arrayBuffer());
    const response = await fetch(`${stack.apiUrl}/api/fansly/media/download`, {
      method: 'POST',
      headers: { 'x-api-key': stack.keys.t1, 'content-type': 'application/json' },
      body: JSON.stringify({ cdnUrl }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(media.mimetype);
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.length).toBeGreaterThan(1000);
    expect(sha256(bytes)).toBe(sha256(direct));
    expect(Number(response.headers.get('content-length'))).toBe(bytes.length);
    await eventually(async () => (spoolFiles().length === 0 ? true : undefined), 5_000, 'spool empty');
  });

  it('refuses a URL off the CDN (400) and answers 404 for a link that is not valid', async () => {
    const download = (cdnUrl: string) => gw(stack, 'POST', '/media/download', { body: { cdnUrl } });
    expectBadRequest(await download('https://example.com/a.jpg'), 'CDN');
    expectBadRequest(await download(`${stack.simUrl}/api/v1/account/me`), 'CDN');
    expectBadRequest(await download('not a url'), 'CDN');
    expectBadRequest(await gw(stack, 'POST', '/media/download', { body: {} }), 'cdnUrl');
    const forged = `${stack.simUrl}/cdn/1/2.jpeg?Expires=9999999999&Key-Pair-Id=SIMKEYPAIR&Signature=forged`;
    expectNotFound(await download(forged), 'expired');
  });
});
