import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { getDefaultAutoSelectFamily, type LookupFunction, setDefaultAutoSelectFamily } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type LoopbackReceiver, loopbackReceiver, stubResolver } from '../../../test/support/destinations';
import { deliveryLookup, destinationProblem, isPrivateAddress, urlProblem } from '../src/destination';
import { postWebhook } from '../src/post';

/** Names resolve through stubs here, never the network; receivers listen on 127.0.0.1. */
const PUBLIC = '93.184.215.14';

let receiver: LoopbackReceiver;
beforeAll(async () => {
  receiver = await loopbackReceiver();
});
afterAll(() => receiver?.close());

const autoSelectFamily = getDefaultAutoSelectFamily();
afterEach(() => setDefaultAutoSelectFamily(autoSelectFamily));

const post = (url: string, allowPrivate: boolean, lookup?: LookupFunction) =>
  postWebhook(url, '{}', {}, { timeoutMs: 2_000, allowPrivate, ...(lookup ? { lookup } : {}) });

describe('webhook destinations', () => {
  it('refuses private, loopback, link-local and reserved addresses', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '0.0.0.0',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::7f00:1',
      '64:ff9b::7f00:1',
      '100.64.0.1',
    ])
      expect(isPrivateAddress(address), address).toBe(true);
    for (const address of ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946', '8.8.8.8'])
      expect(isPrivateAddress(address), address).toBe(false);
  });

  it('takes https public URLs only, unless private destinations are allowed', () => {
    expect(urlProblem('https://hooks.example.com/in', false)).toBeUndefined();
    expect(urlProblem('http://hooks.example.com/in', false)).toMatch(/https/);
    expect(urlProblem('https://127.0.0.1/in', false)).toMatch(/private/);
    expect(urlProblem('https://[::1]:8443/in', false)).toMatch(/private/);
    expect(urlProblem('https://169.254.169.254/latest', false)).toMatch(/private/);
    expect(urlProblem('https://localhost/in', false)).toMatch(/private/);
    expect(urlProblem('https://user:pw@hooks.example.com/', false)).toMatch(/credentials/);
    expect(urlProblem('not a url', false)).toMatch(/absolute/);
    expect(urlProblem('http://127.0.0.1:9999/in', true)).toBeUndefined();
    expect(urlProblem('ftp://127.0.0.1/in', true)).toMatch(/https/);
  });

  it('judges the host normalised: any case, one trailing dot, IPv4 and IPv6 in any spelling', () => {
    // The URL parser writes IPv4 in dotted decimal whatever its form, IPv6 in its short form.
    for (const odd of ['0x7f.0.0.1', '0x7f.1', '2130706433', '0177.0.0.1', '127.1', '127.0.0.1.'])
      expect(new URL(`https://${odd}/`).hostname, odd).toBe('127.0.0.1');
    expect(new URL('https://[0:0:0:0:0:0:0:1]/').hostname).toBe('[::1]');
    expect(new URL('https://[::ffff:127.0.0.1]/').hostname).toBe('[::ffff:7f00:1]');
    for (const url of [
      'https://localhost.:9301/',
      'https://LOCALHOST/',
      'https://Hooks.LOCALHOST./in',
      'https://metadata.google.internal./',
      'https://0x7f.0.0.1/',
      'https://2130706433/',
      'https://127.0.0.1./',
      'https://[::1]/',
      'https://[0:0:0:0:0:0:0:1]/',
      'https://[::ffff:127.0.0.1]/',
      'https://[::127.0.0.1]/',
    ])
      expect(urlProblem(url, false), url).toMatch(/private, loopback or link-local/);
    expect(urlProblem('https://HOOKS.example.com./in', false)).toBeUndefined();
  });

  it('resolves the name at creation: refused when any address is private, taken when none answers', async () => {
    const { lookup, asked } = stubResolver({
      '127.0.0.1.nip.io': [['127.0.0.1']],
      'mixed.example.com': [[PUBLIC, '10.0.0.5']],
      'v6.example.com': [['2606:2800:220:1:248:1893:25c8:1946', '::1']],
      'hooks.example.com': [[PUBLIC]],
    });
    const check = (url: string) => destinationProblem(url, { allowPrivate: false, lookup });
    expect(await check('https://127.0.0.1.nip.io:9301/')).toBe(
      'url host 127.0.0.1.nip.io resolves to a private, loopback or link-local address',
    );
    expect(await check('https://mixed.example.com/in')).toMatch(/mixed\.example\.com resolves to a private/);
    expect(await check('https://v6.example.com/in')).toMatch(/resolves to a private/);
    expect(await check('https://hooks.example.com/in')).toBeUndefined();
    // Not live yet (or a typo): taken; every delivery resolves it again.
    expect(await check('https://not-live-yet.example.com/in')).toBeUndefined();
    expect(asked).toEqual([
      '127.0.0.1.nip.io',
      'mixed.example.com',
      'v6.example.com',
      'hooks.example.com',
      'not-live-yet.example.com',
    ]);
    // What the name's spelling already refuses, and literals, are not looked up; nor anything when allowed.
    expect(await check('https://localhost./')).toMatch(/private/);
    expect(await check('https://8.8.8.8/')).toBeUndefined();
    expect(
      await destinationProblem('http://127.0.0.1.nip.io/', { allowPrivate: true, lookup }),
    ).toBeUndefined();
    expect(asked).toHaveLength(5);
  });

  it('waits a bounded time for a resolver that does not answer, then takes the name', async () => {
    const silent: LookupFunction = () => {};
    const started = Date.now();
    expect(
      await destinationProblem('https://slow.example.com/', { allowPrivate: false, lookup: silent }, 100),
    ).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('sends nothing to a private destination when they are not allowed', async () => {
    const result = await post('http://127.0.0.1:9/in', false);
    expect(result.status).toBeNull();
    expect(result.error).toMatch(/^destination refused: .*https/);
    expect((await post('https://127.0.0.1:9/in', false)).error).toMatch(/^destination refused: .*private/);
  });

  it('refuses at delivery a name resolving to loopback, before any connection, with one lookup', async () => {
    for (const family of [true, false]) {
      // Happy eyeballs (Node's default) asks for every address; without it, one address is asked for.
      setDefaultAutoSelectFamily(family);
      const { lookup, asked } = stubResolver({ 'hooks.example.com': [['127.0.0.1']] });
      const result = await post(`https://hooks.example.com:${receiver.port}/in?token=s3cr3t`, false, lookup);
      expect(result).toMatchObject({
        status: null,
        error: 'destination refused: hooks.example.com resolves to a private, loopback or link-local address',
      });
      expect(asked).toEqual(['hooks.example.com']);
    }
    expect(receiver.connections).toBe(0);
  });

  it('answers the socket the very addresses it checked, from one lookup', async () => {
    for (const all of [true, false]) {
      // A second lookup would answer loopback (DNS rebinding within one delivery).
      const { lookup, asked } = stubResolver({ 'rebind.example.com': [[PUBLIC], ['127.0.0.1']] });
      const answer = await new Promise((resolve, reject) =>
        deliveryLookup(lookup, false)('rebind.example.com', { all }, (error, address, family) =>
          error ? reject(error) : resolve({ address, family }),
        ),
      );
      expect(answer).toEqual(
        all ? { address: [{ address: PUBLIC, family: 4 }] } : { address: PUBLIC, family: 4 },
      );
      expect(asked).toEqual(['rebind.example.com']);
    }
  });

  it('connects to the address it resolved, resolving once, with the name in Host', async () => {
    for (const family of [true, false]) {
      setDefaultAutoSelectFamily(family);
      // A second lookup would answer an address where nothing listens.
      const { lookup, asked } = stubResolver({ 'hooks.example.com': [['127.0.0.1'], ['127.0.0.2']] });
      const result = await post(`http://hooks.example.com:${receiver.port}/in`, true, lookup);
      expect(result.status, String(result.error)).toBe(200);
      expect(asked).toEqual(['hooks.example.com']);
    }
    expect(receiver.hosts).toEqual([
      `hooks.example.com:${receiver.port}`,
      `hooks.example.com:${receiver.port}`,
    ]);
  });
});

describe('an https delivery', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cg-dest-'));
    execFileSync(
      'openssl',
      [
        ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
        ...['-subj', '/CN=hooks.example.com', '-days', '1'],
        ...['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names the host in TLS SNI while connecting to the address it resolved', async () => {
    const names: string[] = [];
    const server = createTlsServer({
      cert: readFileSync(join(dir, 'cert.pem')),
      key: readFileSync(join(dir, 'key.pem')),
      SNICallback: (servername, callback) => {
        names.push(servername);
        callback(null, undefined);
      },
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const { port } = server.address() as { port: number };
      const { lookup, asked } = stubResolver({ 'hooks.example.com': [['127.0.0.1']] });
      const result = await post(`https://hooks.example.com:${port}/in`, true, lookup);
      // The self-signed certificate is not trusted: the handshake got as far as the server's answer.
      expect(result.error).toMatch(/self-signed|self signed/);
      expect(names).toEqual(['hooks.example.com']);
      expect(asked).toEqual(['hooks.example.com']);
    } finally {
      server.close();
    }
  });
});
