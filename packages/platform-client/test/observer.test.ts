import { Buffer } from 'node:buffer';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CallReport, PlatformClient } from '../src/index';

// `onCall` over real HTTP: a stand-in platform on 127.0.0.1 answers each path as the test needs, and
// every request the client sends must be reported once, with its endpoint's name and its outcome.

const TOKEN = Buffer.from('312345678901234567:1:2:0a1b2c3d4e5f60718293a4b5c6d7e8f9').toString('base64');
const AUTH = { token: TOKEN, deviceId: '298765432109876543' };

let answer: (res: ServerResponse) => void = (res) => envelope(res, 200, { success: true, response: {} });
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => answer(res));
});

function envelope(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

let baseUrl = '';
const reports: CallReport[] = [];
let client: PlatformClient;

beforeAll(async () => {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = new PlatformClient({ baseUrl, timeoutMs: 300, onCall: (report) => reports.push(report) });
});
afterAll(async () => {
  await client.close();
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});

/** The one report of the call `run` makes (it may fail: the report is what is checked). */
async function reportOf(run: () => Promise<unknown>): Promise<CallReport> {
  reports.length = 0;
  await run().catch(() => undefined);
  expect(reports).toHaveLength(1);
  return reports[0] as CallReport;
}

describe('PlatformClient onCall', () => {
  it('reports a success as ok, by the endpoint map’s name, with its duration', async () => {
    answer = (res) => setTimeout(() => envelope(res, 200, { success: true, response: {} }), 30);
    const report = await reportOf(() => client.call(AUTH, 'accountMe'));
    expect(report).toMatchObject({ endpoint: 'accountMe', outcome: 'ok' });
    expect(report.durationMs).toBeGreaterThanOrEqual(25);
    expect(report.durationMs).toBeLessThan(2_000);
    // Nothing of the request itself (path, parameters, token) is in a report.
    expect(Object.keys(report).sort()).toEqual(['durationMs', 'endpoint', 'outcome']);
  });

  it.each([
    [429, 'rate_limited'],
    [404, 'http_4xx'],
    [503, 'http_5xx'],
    [200, 'refused'],
  ] as const)('reports an answer %i as %s', async (status, outcome) => {
    answer = (res) => envelope(res, status, { success: false, error: { code: 10, details: 'no' } });
    expect(await reportOf(() => client.call(AUTH, 'accountMe'))).toMatchObject({ outcome });
  });

  it('reports an answer it cannot read as bad_response', async () => {
    answer = (res) => envelope(res, 200, 'not an envelope');
    expect(await reportOf(() => client.call(AUTH, 'accountMe'))).toMatchObject({ outcome: 'bad_response' });
  });

  it('reports an answer that never comes as timeout', async () => {
    answer = () => undefined; // the stand-in holds the request; the client gives up after 300 ms
    expect(await reportOf(() => client.call(AUTH, 'accountMe'))).toMatchObject({ outcome: 'timeout' });
  });

  it('reports a refused connection as network', async () => {
    const nowhere = new PlatformClient({
      baseUrl: 'http://127.0.0.1:1',
      onCall: (report) => reports.push(report),
    });
    expect(await reportOf(() => nowhere.getDeviceId())).toMatchObject({
      endpoint: 'deviceId',
      outcome: 'network',
    });
    await nowhere.close();
  });

  it('reports file transfers by their status, and never fails a call for a throwing onCall', async () => {
    answer = (res) => {
      res.writeHead(403);
      res.end();
    };
    const report = await reportOf(async () =>
      (await client.fetchFile(`${baseUrl}/cdn/file.jpg`)).body.resume(),
    );
    expect(report).toMatchObject({ endpoint: 'cdnFile', outcome: 'http_4xx' });
    answer = (res) => {
      res.writeHead(200, { etag: '"e1"' });
      res.end();
    };
    const throwing = new PlatformClient({
      baseUrl,
      onCall: () => {
        throw new Error('metrics broke');
      },
    });
    await expect(
      throwing.putPart(`${baseUrl}/upload/1`, Readable.from([Buffer.from('abc')]), 3),
    ).resolves.toBe('"e1"');
    await throwing.close();
  });
});
