import type { LookupAddress } from 'node:dns';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { type AddressInfo, isIP, type LookupFunction } from 'node:net';

/** A resolver the test controls: what each name answered, call by call. */
export interface StubResolver {
  /** dns.lookup's signature, for the webhook settings and the API. */
  lookup: LookupFunction;
  /** Every name asked, in order. */
  asked: string[];
}

/**
 * Answers `answers[name][n]` to the n-th question about `name` (the last list again after that), as
 * dns.lookup does: every address with `all: true`, else the first. Any other name is ENOTFOUND.
 */
export function stubResolver(answers: Record<string, string[][]>): StubResolver {
  const asked: string[] = [];
  const lookup: LookupFunction = (hostname, options, callback) => {
    const turns = answers[hostname];
    const turn = turns?.[Math.min(asked.filter((name) => name === hostname).length, turns.length - 1)];
    asked.push(hostname);
    const addresses: LookupAddress[] = (turn ?? []).map((address) => ({ address, family: isIP(address) }));
    const first = addresses[0];
    setImmediate(() => {
      if (!first)
        return callback(
          Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }),
          [],
        );
      return options.all ? callback(null, addresses) : callback(null, first.address, first.family);
    });
  };
  return { lookup, asked };
}

/** An HTTP receiver on 127.0.0.1 that counts every connection made to it, request or not. */
export interface LoopbackReceiver {
  port: number;
  /** Connections accepted (a TLS handshake to this plain server counts too). */
  connections: number;
  /** The Host header of each request. */
  hosts: IncomingHttpHeaders['host'][];
  close(): Promise<void>;
}

export async function loopbackReceiver(): Promise<LoopbackReceiver> {
  const server: Server = createServer((req, res) => {
    receiver.hosts.push(req.headers.host);
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  server.on('connection', () => receiver.connections++);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const receiver: LoopbackReceiver = {
    port: (server.address() as AddressInfo).port,
    connections: 0,
    hosts: [],
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
  return receiver;
}

/** A webhook receiver on 127.0.0.1: `url` to register; each POST's body and headers go to `onPost`, answered 204. */
export interface WebhookReceiver {
  url: string;
  close(): Promise<void>;
}

export async function webhookReceiver(
  onPost: (body: string, headers: IncomingHttpHeaders) => void,
): Promise<WebhookReceiver> {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      onPost(body, request.headers);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise((done) => server.close(() => done())),
  };
}
