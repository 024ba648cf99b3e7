import { request } from 'node:http';
import type { Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import WebSocket from 'ws';

/** The web client's `Origin` on the upgrade. */
const ORIGIN = 'https://fansly.com';

/**
 * A CONNECT tunnel to `target` through an HTTP proxy (`http://[user:pass@]host:port`): the socket,
 * once the proxy answered 200. Basic auth from the URL's user and password.
 */
function tunnel(proxy: URL, target: URL, timeoutMs: number): Promise<Socket> {
  const port = target.port || (target.protocol === 'wss:' ? '443' : '80');
  const authority = `${target.hostname}:${port}`;
  const credentials =
    proxy.username === ''
      ? {}
      : {
          'proxy-authorization': `Basic ${Buffer.from(
            `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`,
          ).toString('base64')}`,
        };
  return new Promise((resolve, reject) => {
    const connecting = request({
      host: proxy.hostname,
      port: proxy.port || 80,
      method: 'CONNECT',
      path: authority,
      headers: { host: authority, ...credentials },
      timeout: timeoutMs,
    });
    connecting.once('connect', (answer, socket) => {
      if (answer.statusCode === 200) return resolve(socket);
      socket.destroy();
      // The proxy's status only: its URL holds the password.
      reject(new Error(`the egress proxy refused the tunnel (HTTP ${answer.statusCode})`));
    });
    connecting.once('timeout', () => connecting.destroy(new Error('the egress proxy did not answer')));
    connecting.once('error', reject);
    connecting.end();
  });
}

/**
 * The account's websocket to the platform (the `ws` client: a few KB per connection), through its
 * egress proxy's CONNECT tunnel when it has one, TLS inside the tunnel for `wss:`.
 */
export async function openSocket(
  url: string,
  proxy: string | undefined,
  timeoutMs: number,
): Promise<WebSocket> {
  const target = new URL(url);
  const options = { perMessageDeflate: false, headers: { origin: ORIGIN }, handshakeTimeout: timeoutMs };
  if (proxy === undefined) return new WebSocket(url, options);
  const socket = await tunnel(new URL(proxy), target, timeoutMs);
  const secure = target.protocol === 'wss:';
  return new WebSocket(url, {
    ...options,
    createConnection: () => (secure ? tlsConnect({ socket, servername: target.hostname }) : socket),
  });
}
