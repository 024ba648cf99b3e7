import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A real HTTP proxy (Debian's tinyproxy) on a loopback port, leaving from an address of its own. */
export interface LocalProxy {
  /** `http://[user:pass@]127.0.0.1:<port>`, as EGRESS_PROXIES takes it. */
  readonly url: string;
  /** `127.0.0.1:<port>`, what the gateway shows as the egress. */
  readonly label: string;
  /** The outgoing address the platform sees (tinyproxy's `Bind`). */
  readonly bind: string;
  /** What tinyproxy logged (warnings and errors). */
  log(): string;
  start(): Promise<void>;
  /** Kills it (SIGKILL); `start` again on the same port. */
  stop(): Promise<void>;
  /** Stops it and removes its files. */
  remove(): Promise<void>;
}

/**
 * Starts tinyproxy on a free loopback port with outgoing address `bind` (127.0.0.0/8 is all
 * loopback), with basic auth when `auth` is given. `stop` and `start` keep the port.
 */
export async function startProxy(options: {
  bind: string;
  auth?: { user: string; password: string };
}): Promise<LocalProxy> {
  const dir = mkdtempSync(join(tmpdir(), 'cg-proxy-'));
  const port = await freePort();
  const config = [
    `Port ${port}`,
    'Listen 127.0.0.1',
    `Bind ${options.bind}`,
    'Timeout 30',
    'MaxClients 512',
    'LogLevel Warning',
    `LogFile "${join(dir, 'tinyproxy.log')}"`,
    `PidFile "${join(dir, 'tinyproxy.pid')}"`,
    'DisableViaHeader Yes',
    ...(options.auth ? [`BasicAuth ${options.auth.user} ${options.auth.password}`] : []),
  ].join('\n');
  writeFileSync(join(dir, 'tinyproxy.conf'), `${config}\n`);
  const userinfo = options.auth ? `${options.auth.user}:${options.auth.password}@` : '';
  let child: ChildProcess | undefined;
  const proxy: LocalProxy = {
    url: `http://${userinfo}127.0.0.1:${port}`,
    label: `127.0.0.1:${port}`,
    bind: options.bind,
    log: () => {
      try {
        return readFileSync(join(dir, 'tinyproxy.log'), 'utf8');
      } catch {
        return '';
      }
    },
    start: async () => {
      child = spawn('tinyproxy', ['-d', '-c', join(dir, 'tinyproxy.conf')], { stdio: 'ignore' });
      await waitUntilAccepting(port, 10_000);
    },
    stop: async () => {
      const running = child;
      child = undefined;
      if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise((done) => running.once('exit', done));
      running.kill('SIGKILL');
      await exited;
    },
    remove: async () => {
      await proxy.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await proxy.start();
  return proxy;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitUntilAccepting(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await accepts(port))) {
    if (Date.now() > deadline) throw new Error(`tinyproxy did not listen on ${port} within ${timeoutMs} ms`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
