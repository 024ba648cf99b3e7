import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAccount } from '../support/common';
import { eventually } from '../support/processes';
import { answers } from '../support/raw-http';
import { gw, startStack, type TestStack } from '../support/stack';

// Uploads over MEDIA_MAX_BYTES on raw sockets: refused as soon as they pass the limit, however they
// are framed, and their connection closed, while the sender is still sending.

const MB = 1024 * 1024;
const LIMIT = MB;
/** What a sender that never ends sends at most, then it stalls (a body that never arrives whole). */
const SENDER_CAP = 64 * LIMIT;
const BOUNDARY = 'cg-limit-boundary';

let stack: TestStack;
let accountId: string;

beforeAll(async () => {
  stack = await startStack({ env: { MEDIA_MAX_BYTES: String(LIMIT) } });
  accountId = await connectAccount(stack, 'creator_demo');
});
afterAll(async () => {
  await stack?.stop();
});

/** What a raw socket saw: the server's bytes, when (ms after connecting) they came and it closed. */
interface Exchange {
  answer: string;
  answeredAfterMs: number;
  /** The server's end of the connection (its FIN, or a reset). */
  closedAfterMs: number;
  /** Body bytes the sender got onto the socket before the server closed it. */
  sent: number;
}

/**
 * Writes `head`, then each of `body` as the socket takes it (waiting for it to drain), until the
 * server closes the connection; never ends its own side. Resolves once the server has closed it; a
 * connection still open after `giveUpMs` is a failure.
 */
function exchange(head: string, body: Iterable<Buffer>, giveUpMs = 10_000): Promise<Exchange> {
  const { hostname, port } = new URL(stack.apiUrl);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const seen = { answer: '', answeredAfterMs: -1, sent: 0 };
    let closed = false;
    const socket = connect(Number(port), hostname, async () => {
      socket.write(head);
      for (const bytes of body) {
        if (closed) return;
        seen.sent += bytes.length;
        if (!socket.write(bytes)) await drained(socket);
      }
    });
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server held the connection open for ${giveUpMs} ms`));
    }, giveUpMs);
    socket.on('data', (chunk) => {
      if (seen.answeredAfterMs < 0) seen.answeredAfterMs = Date.now() - started;
      seen.answer += chunk.toString();
    });
    const serverClosed = () => {
      if (closed) return;
      closed = true;
      clearTimeout(giveUp);
      resolve({ ...seen, closedAfterMs: Date.now() - started });
      socket.destroy();
    };
    socket.on('end', serverClosed);
    socket.on('error', serverClosed); // a reset is a close too
    socket.on('close', serverClosed);
  });
}

/** Once `socket` takes more writes, or has closed. */
function drained(socket: Socket): Promise<void> {
  return new Promise((done) => {
    const go = () => {
      socket.off('drain', go).off('close', go);
      done();
    };
    socket.on('drain', go).on('close', go);
  });
}

const uploadHead = (framing: string) =>
  `POST /api/fansly/${accountId}/media/upload HTTP/1.1\r\nHost: gateway\r\n` +
  `x-api-key: ${stack.keys.t1}\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\n${framing}\r\n`;

const partHead = Buffer.from(
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="clip.mp4"\r\n` +
    'Content-Type: video/mp4\r\n\r\n',
);
const partEnd = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);

/** The multipart body's bytes: the file part's head, then `fileBytes` bytes of file, 64 KiB at a time. */
function* multipart(fileBytes: number): Generator<Buffer> {
  yield partHead;
  const piece = randomBytes(64 * 1024);
  for (let left = fileBytes; left > 0; left -= piece.length)
    yield piece.subarray(0, Math.min(left, piece.length));
}

/** Each of `parts` as one chunk of `Transfer-Encoding: chunked`. */
function* chunked(parts: Iterable<Buffer>): Generator<Buffer> {
  for (const part of parts)
    yield Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]);
}

const spoolFiles = () =>
  existsSync(stack.env.MEDIA_SPOOL_DIR ?? '') ? readdirSync(stack.env.MEDIA_SPOOL_DIR ?? '') : [];

/** The 413 the gateway answers an upload over the limit with, and the connection closed soon after. */
function expectCutOff(seen: Exchange): void {
  const [answer, ...more] = answers(seen.answer);
  expect(more).toEqual([]);
  expect(answer?.status).toBe(413);
  expect(answer?.headers.connection).toBe('close');
  expect(answer?.body).toEqual({
    statusCode: 413,
    error: 'Payload Too Large',
    code: 'PAYLOAD_TOO_LARGE',
    message: `the file is larger than this gateway's limit of ${LIMIT} bytes`,
    requestId: expect.any(String),
  });
  // Far from REQUEST_TIMEOUT_MS (15 min) and BODY_IDLE_TIMEOUT_MS (15 s): at once, and closed a
  // second later at most.
  expect(seen.answeredAfterMs).toBeLessThan(3_000);
  expect(seen.closedAfterMs).toBeLessThan(3_000);
  // The sender was stopped: the server read about the limit's worth, not the whole body.
  expect(seen.sent).toBeLessThan(SENDER_CAP / 2);
  expect(spoolFiles()).toEqual([]);
}

describe('an upload over MEDIA_MAX_BYTES', () => {
  it('sent chunked and never ended: 413 as it passes the limit, and the connection closed', async () => {
    const seen = await exchange(uploadHead('Transfer-Encoding: chunked\r\n'), chunked(multipart(SENDER_CAP)));
    expectCutOff(seen);
  });

  it('with a Content-Length over the limit, never sent whole: 413 at once, and the connection closed', async () => {
    const seen = await exchange(uploadHead(`Content-Length: ${10 * SENDER_CAP}\r\n`), multipart(SENDER_CAP));
    expectCutOff(seen);
  });

  it('with a Content-Length within the allowance, its file over the limit: 413 as it passes it', async () => {
    // Declared just over the limit (multipart's own bytes are allowed for), the file a little more.
    const fileBytes = LIMIT + 16 * 1024;
    const seen = await exchange(
      uploadHead(`Content-Length: ${partHead.length + fileBytes + partEnd.length}\r\n`),
      // Never sent whole: the closing boundary does not come.
      multipart(fileBytes),
    );
    expectCutOff(seen);
  });
});

describe('an upload under MEDIA_MAX_BYTES', () => {
  it('sent chunked, is spooled whole and uploaded', async () => {
    const fileBytes = LIMIT - 1024;
    const body = [...chunked([...multipart(fileBytes), partEnd]), Buffer.from('0\r\n\r\n')];
    const seen = await exchange(uploadHead('Transfer-Encoding: chunked\r\nConnection: close\r\n'), body);
    const [answer] = answers(seen.answer);
    expect(answer?.status).toBe(201);
    expect(answer?.body).toMatchObject({ statusCode: 201, data: { jobId: expect.stringMatching(/^job_/) } });
    const job = await eventually(
      async () => {
        const status = await gw(stack, 'GET', `/media/upload/${answer?.body.data.jobId}/status`);
        const { state } = status.body.data;
        return state === 'completed' || state === 'failed' ? status.body.data : undefined;
      },
      30_000,
      'upload finished',
    );
    expect(job).toMatchObject({ state: 'completed', error: null });
  });

  it('sent with fetch (Content-Length), is taken as before', async () => {
    const form = new FormData();
    form.append('file', new Blob([randomBytes(LIMIT - 1024)], { type: 'image/png' }), 'dot.png');
    const response = await fetch(`${stack.apiUrl}/api/fansly/${accountId}/media/upload`, {
      method: 'POST',
      headers: { 'x-api-key': stack.keys.t1 },
      body: form,
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('connection')).not.toBe('close');
  });
});

describe('the OpenAPI document', () => {
  it('states the configured MEDIA_MAX_BYTES as the upload limit', async () => {
    const document = (await (await fetch(`${stack.apiUrl}/openapi.json`)).json()) as any;
    const upload = document.paths['/api/fansly/{accountId}/media/upload'].post;
    expect(upload.description).toContain(`At most ${LIMIT} bytes (413)`);
    expect(JSON.stringify(document)).not.toContain('524288000');
  });
});
