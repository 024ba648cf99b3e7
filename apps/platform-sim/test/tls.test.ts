import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSim } from '../src/app';

/** The sandbox over https: `tls` in code, `SIM_TLS_CERT` and `SIM_TLS_KEY` for the process. */

const MAIN = resolve(import.meta.dirname, '../src/main.ts');

let dir = '';
let certPath = '';
let keyPath = '';
let cert = '';
/** A client that trusts the test's self-signed certificate, as NODE_EXTRA_CA_CERTS makes the gateway do. */
let trusting: Agent;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sim-tls-'));
  certPath = join(dir, 'c.pem');
  keyPath = join(dir, 'k.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-days',
      '1',
      '-keyout',
      keyPath,
      '-out',
      certPath,
    ],
    { stdio: 'ignore' },
  );
  cert = readFileSync(certPath, 'utf8');
  trusting = new Agent({ connect: { ca: cert } });
});

afterAll(async () => {
  await trusting?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function fixtures(url: string, dispatcher: Agent) {
  const response = await request(`${url}/_sim/fixtures`, { dispatcher });
  return { status: response.statusCode, body: (await response.body.json()) as { accounts: unknown[] } };
}

describe('buildSim({ tls })', () => {
  it('serves https on its port to a client that trusts the certificate', async () => {
    const app = await buildSim({ logLevel: 'silent', tls: { cert, key: readFileSync(keyPath) } });
    try {
      const url = await app.listen({ port: 0, host: '127.0.0.1' });
      expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const answer = await fixtures(url, trusting);
      expect(answer.status).toBe(200);
      expect(answer.body.accounts.map((a) => (a as { username: string }).username)).toEqual([
        'creator_demo',
        'creator_2fa',
      ]);
      // A client that does not trust it is refused at the handshake; plain http gets no answer.
      const untrusting = new Agent();
      try {
        await expect(fixtures(url, untrusting)).rejects.toThrow(/self-signed|self signed/i);
        await expect(fixtures(url.replace('https:', 'http:'), untrusting)).rejects.toThrow();
      } finally {
        await untrusting.close();
      }
    } finally {
      await app.close();
    }
  });

  it('refuses a certificate without its key', async () => {
    await expect(buildSim({ logLevel: 'silent', tls: { cert, key: '' } })).rejects.toThrow(
      /tls must be null or \{ cert, key \}/,
    );
  });
});

/** Runs the sandbox's entry point with `env`; resolves with its URL once it listens, or its exit. */
function startMain(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: { ...process.env, SIM_PORT: '0', SIM_HOST: '127.0.0.1', SIM_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const outcome = new Promise<{ url?: string; code?: number | null; stderr: string }>((done) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const url = /listening on (\S+)"/.exec(line)?.[1];
      if (url) done({ url, stderr });
    });
    child.once('exit', (code) => done({ code, stderr }));
  });
  return { child, outcome };
}

describe('SIM_TLS_CERT and SIM_TLS_KEY', () => {
  it('make the process serve https', async () => {
    const { child, outcome } = startMain({ SIM_TLS_CERT: certPath, SIM_TLS_KEY: keyPath });
    try {
      const { url, stderr } = await outcome;
      expect(url, stderr).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const answer = await fixtures(url ?? '', trusting);
      expect(answer.status).toBe(200);
      expect(answer.body.accounts).toHaveLength(2);
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((done) => child.once('exit', done));
        child.kill('SIGTERM');
        await exited;
      }
    }
  });

  for (const [set, other] of [
    ['SIM_TLS_CERT', 'SIM_TLS_KEY'],
    ['SIM_TLS_KEY', 'SIM_TLS_CERT'],
  ] as const) {
    it(`stop the process with one line naming both when only ${set} is set`, async () => {
      const { outcome } = startMain({ [set]: set === 'SIM_TLS_CERT' ? certPath : keyPath, [other]: '' });
      const { url, code, stderr } = await outcome;
      expect(url).toBeUndefined();
      expect(code).toBe(1);
      const lines = stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('SIM_TLS_CERT');
      expect(lines[0]).toContain('SIM_TLS_KEY');
    });
  }

  it('stop the process with one line when the files are not a certificate and its key', async () => {
    const { outcome } = startMain({ SIM_TLS_CERT: keyPath, SIM_TLS_KEY: certPath });
    const { code, stderr } = await outcome;
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/SIM_TLS_CERT and SIM_TLS_KEY are not a PEM certificate and its key/);
  });
});
