/**
 * `pnpm webhooks:listen [--events a,b] [--accounts acct_1,acct_2] [--port n]`: a developer's loop.
 * Starts a receiver on this machine, registers it as a webhook endpoint of the API key's tenant,
 * prints each event whose signature checks out (one JSON line each, on stdout), and removes the
 * endpoint on Ctrl-C. The gateway must take http loopback URLs (`WEBHOOK_ALLOW_PRIVATE=true`, as
 * `pnpm start` sets). `API_URL` (default http://127.0.0.1:3000/api/fansly) and `API_KEY` (default
 * the one `pnpm start` keeps in .local/api-key) say which gateway and tenant.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { verifyWebhook } from '@cg/events';

const root = resolve(import.meta.dirname, '..');
const env = process.env;

interface Answer {
  message?: string;
  data?: unknown;
}

function apiKey(): string {
  if (env.API_KEY) return env.API_KEY;
  const kept = resolve(root, '.local/api-key');
  if (existsSync(kept)) return readFileSync(kept, 'utf8').trim();
  throw new Error('no API key: set API_KEY, or run `pnpm start` once (it keeps one in .local/api-key)');
}

const csv = (value: string | undefined) =>
  value === undefined
    ? undefined
    : value
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean);

async function call(method: string, path: string, body?: unknown): Promise<Answer> {
  const base = env.API_URL ?? 'http://127.0.0.1:3000/api/fansly';
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-api-key': apiKey(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = (await response.json().catch(() => ({}))) as Answer;
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${answer.message ?? ''}`.trim());
  return answer;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((done, fail) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      text += chunk;
    });
    request.on('end', () => done(text));
    request.on('error', fail);
  });
}

const { values } = parseArgs({
  options: { events: { type: 'string' }, accounts: { type: 'string' }, port: { type: 'string' } },
});

let secret = '';
const server = createServer(async (request, response) => {
  const body = await readBody(request);
  if (!secret || !verifyWebhook(request.headers, body, secret)) {
    process.stderr.write(
      `refused a delivery with a bad or stale signature (${request.headers['webhook-id']})\n`,
    );
    response.writeHead(401).end();
    return;
  }
  process.stdout.write(`${body}\n`);
  response.writeHead(204).end();
});
await new Promise<void>((done) => server.listen(Number(values.port ?? 0), '127.0.0.1', done));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

const events = csv(values.events);
const accountIds = csv(values.accounts);
const created = await call('POST', '/webhooks', {
  url,
  description: 'pnpm webhooks:listen',
  ...(events ? { events } : {}),
  ...(accountIds ? { accountIds } : {}),
}).catch((error: unknown) => {
  process.stderr.write(
    `${(error as Error).message}\n(the gateway needs WEBHOOK_ALLOW_PRIVATE=true for ${url})\n`,
  );
  process.exit(1);
});
const endpoint = created.data as { id: string; secret: string };
secret = endpoint.secret;
process.stderr.write(`listening on ${url} as webhook ${endpoint.id}; Ctrl-C removes it\n`);

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await call('DELETE', `/webhooks/${endpoint.id}`).catch((error: unknown) =>
    process.stderr.write(`could not remove webhook ${endpoint.id}: ${(error as Error).message}\n`),
  );
  server.close();
  process.stderr.write(`removed webhook ${endpoint.id}\n`);
  process.exit(0);
}
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());
