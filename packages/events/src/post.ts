import { lookup as dnsLookup } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { deliveryLookup, urlProblem } from './destination';

/** Response bodies are kept this long at most (and never logged). */
export const MAX_RESPONSE_BYTES = 1_024;

export interface PostResult {
  /** The HTTP status, when an answer came. */
  status: number | null;
  /** Why no answer came (timeout, refused destination, connection error). */
  error: string | null;
  durationMs: number;
  /** The first KiB of the response body. */
  response: string;
}

/**
 * POSTs `body` to `url` with `headers`. Redirects are not followed (a 3xx is a failed attempt). Unless
 * `allowPrivate`, the destination is checked as written (`urlProblem`) and again after DNS, on the
 * very addresses the socket connects to (`deliveryLookup`; names resolved by `lookup`, default
 * `dns.lookup`). The answer counts when its status line and headers arrive within `timeoutMs`.
 */
export function postWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; allowPrivate: boolean; lookup?: LookupFunction | undefined },
): Promise<PostResult> {
  const started = performance.now();
  const done = (status: number | null, error: string | null, response = ''): PostResult => ({
    status,
    error,
    durationMs: Math.round(performance.now() - started),
    response,
  });
  const problem = urlProblem(url, options.allowPrivate);
  if (problem !== undefined) return Promise.resolve(done(null, `destination refused: ${problem}`));
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const req = send(
      target,
      {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'creator-gateway-webhooks/1',
        },
        agent: false,
        lookup: deliveryLookup(options.lookup ?? dnsLookup, options.allowPrivate),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        clearTimeout(timer);
        const chunks: Buffer[] = [];
        let size = 0;
        const end = () => {
          res.destroy();
          finish(done(status, null, Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BYTES).toString('utf8')));
        };
        // The body only for the record: a short wait, and no more than the first KiB.
        const bodyTimer = setTimeout(end, 1_000);
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          if (size >= MAX_RESPONSE_BYTES) {
            clearTimeout(bodyTimer);
            end();
          }
        });
        res.on('end', () => {
          clearTimeout(bodyTimer);
          end();
        });
        res.on('error', () => {
          clearTimeout(bodyTimer);
          end();
        });
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      finish(done(null, `no answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    req.on('error', (error) => finish(done(null, error.message)));
    req.end(body);
  });
}
