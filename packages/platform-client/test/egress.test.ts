import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalProxy, startProxy } from '../../../scripts/lib/proxy';
import { PlatformClient } from '../src/client';
import { PlatformError } from '../src/errors';

// The client through a real HTTP proxy (tinyproxy) to a stand-in platform on loopback: what the
// platform sees, and how each way the proxy can fail is reported.

const PASSWORD = 'proxy-pw-7Hq2';
const seen: { address: string; headers: IncomingHttpHeaders }[] = [];
const platform = createServer((req, res) => {
  seen.push({ address: req.socket.remoteAddress ?? '', headers: req.headers });
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ success: true, response: '123456789012345678' }));
});

let proxy: LocalProxy;
let client: PlatformClient;
let origin = '';

beforeAll(async () => {
  proxy = await startProxy({ bind: '127.0.0.5', auth: { user: 'agency', password: PASSWORD } });
  await new Promise<void>((done) => platform.listen(0, '127.0.0.1', done));
  origin = `http://127.0.0.1:${(platform.address() as AddressInfo).port}`;
  client = new PlatformClient({ baseUrl: origin, timeoutMs: 2_000 });
});

afterAll(async () => {
  await client.close();
  await proxy.remove();
  await new Promise((done) => platform.close(done));
});

/** The PlatformError a call failed with (the test fails if it succeeded). */
async function failure(call: Promise<unknown>): Promise<PlatformError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}

describe('PlatformClient.through(proxy)', () => {
  it('sends through the proxy: the platform sees its address, never the proxy credentials', async () => {
    seen.length = 0;
    expect(await client.through(proxy.url).getDeviceId()).toBe('123456789012345678');
    expect(seen).toHaveLength(1);
    expect(seen[0]?.address).toBe(proxy.bind);
    expect(JSON.stringify(seen[0]?.headers)).not.toContain('proxy-authorization');
    // The same client direct, and the same view again for the same proxy.
    expect(await client.through(null).getDeviceId()).toBe('123456789012345678');
    expect(seen[1]?.address).toBe('127.0.0.1');
    expect(client.through(proxy.url)).toBe(client.through(proxy.url));
  });

  it('reports a proxy that asks for credentials (407) as proxy_failed, retryable', async () => {
    const error = await failure(client.through(proxy.url.replace(`agency:${PASSWORD}@`, '')).getDeviceId());
    expect(error).toMatchObject({ kind: 'proxy_failed', retry: 'retryable' });
    expect(error.message).toContain('refused the credentials (HTTP 407)');
  });

  it('reports a proxy that is not there as proxy_failed, a write included (it was never sent)', async () => {
    await proxy.stop();
    try {
      const down = client.through(proxy.url);
      const read = await failure(down.getDeviceId());
      expect(read).toMatchObject({ kind: 'proxy_failed', retry: 'retryable', networkCode: 'ECONNREFUSED' });
      const write = await failure(down.loginTwofa({ token: 't', code: '1', deviceId: '123456789012345678' }));
      expect(write).toMatchObject({ kind: 'proxy_failed', retry: 'retryable' });
      expect(write.message).toContain(proxy.label);
      expect(write.message).not.toContain(PASSWORD);
    } finally {
      await proxy.start();
    }
  });

  it('tunnels to an https platform, and reports a refused tunnel as proxy_failed', async () => {
    // Nothing listens on port 1: the proxy answers the CONNECT with an error before any TLS.
    const https = new PlatformClient({ baseUrl: 'https://127.0.0.1:1', timeoutMs: 2_000 });
    try {
      const unreachable = await failure(https.through(proxy.url).getDeviceId());
      expect(unreachable.kind).toBe('proxy_failed');
      expect(unreachable.message).toMatch(/refused the tunnel \(HTTP 5\d\d\)/);
      const anonymous = await failure(
        https.through(proxy.url.replace(`agency:${PASSWORD}@`, '')).getDeviceId(),
      );
      expect(anonymous.message).toContain('refused the tunnel (HTTP 407)');
      // tinyproxy answers wrong credentials with 401; any refused CONNECT is the proxy's.
      const wrong = await failure(https.through(proxy.url.replace(PASSWORD, 'wrong-pw')).getDeviceId());
      expect(wrong).toMatchObject({ kind: 'proxy_failed', retry: 'retryable' });
      expect(wrong.message).toMatch(/refused the tunnel \(HTTP 40[17]\)/);
      expect(wrong.message).not.toContain('wrong-pw');
    } finally {
      await https.close();
    }
  });

  it('leaves a failure after the proxy forwarded the request to the platform’s rules', async () => {
    // The proxy forwards to a platform that is not there: its own error answer is not a proxy-layer
    // failure the client can prove, so a write is an unknown outcome.
    const gone = new PlatformClient({ baseUrl: 'http://127.0.0.1:1', timeoutMs: 2_000 });
    try {
      const write = await failure(
        gone.through(proxy.url).loginTwofa({ token: 't', code: '1', deviceId: '1' }),
      );
      expect(write.kind).not.toBe('proxy_failed');
      expect(write.retry).toBe('outcome_unknown');
    } finally {
      await gone.close();
    }
  });
});
