import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The proxy servers this launches: Debian's tinyproxy, or squid (the common production proxy). */
export type ProxyKind = 'tinyproxy' | 'squid';

/** A real HTTP proxy on a loopback port, leaving from an address of its own. */
export interface LocalProxy {
  readonly kind: ProxyKind;
  /** `http://[user:pass@]127.0.0.1:<port>`, as EGRESS_PROXIES takes it. */
  readonly url: string;
  /** `127.0.0.1:<port>`, what the gateway shows as the egress. */
  readonly label: string;
  /** The outgoing address the platform sees (tinyproxy's `Bind`, squid's `tcp_outgoing_address`). */
  readonly bind: string;
  /** The running server's process id (undefined while stopped). */
  pid(): number | undefined;
  /** What it logged (warnings and errors). */
  log(): string;
  start(): Promise<void>;
  /** Kills it (SIGKILL); `start` again on the same port. */
  stop(): Promise<void>;
  /** Stops it and removes its files. */
  remove(): Promise<void>;
}

interface Launch {
  /** The configuration file's text. */
  config: string;
  /** The command and its arguments, given the configuration file's path. */
  command: (configPath: string) => [string, string[]];
}

/**
 * tinyproxy: basic auth when asked. It sets no TCP_NODELAY on its sockets, so a response the server
 * writes in two pieces waits for the client's delayed ACK (about 40 ms) between them; and it closes
 * every client connection after one forwarded (http) response.
 */
function tinyproxy(dir: string, port: number, options: ProxyOptions): Launch {
  const config = [
    `Port ${port}`,
    'Listen 127.0.0.1',
    `Bind ${options.bind}`,
    'Timeout 30',
    'MaxClients 512',
    'LogLevel Warning',
    `LogFile "${join(dir, 'proxy.log')}"`,
    `PidFile "${join(dir, 'proxy.pid')}"`,
    'DisableViaHeader Yes',
    ...(options.auth ? [`BasicAuth ${options.auth.user} ${options.auth.password}`] : []),
  ];
  return { config: config.join('\n'), command: (path) => ['tinyproxy', ['-d', '-c', path]] };
}

/** squid, in the foreground, caching nothing, keeping connections to clients and servers alive. */
function squid(dir: string, port: number, options: ProxyOptions): Launch {
  if (options.auth) throw new Error('squid is started without authentication here; use tinyproxy for auth');
  const config = [
    `http_port 127.0.0.1:${port}`,
    'http_access allow all',
    `tcp_outgoing_address ${options.bind}`,
    'cache deny all',
    'cache_mem 8 MB',
    'max_filedescriptors 8192',
    'pinger_enable off',
    'via off',
    'forwarded_for delete',
    'access_log none',
    `cache_log ${join(dir, 'proxy.log')}`,
    `pid_filename ${join(dir, 'proxy.pid')}`,
    `coredump_dir ${dir}`,
    'shutdown_lifetime 0 seconds',
  ];
  return { config: config.join('\n'), command: (path) => ['squid', ['-N', '-f', path]] };
}

const LAUNCHERS: Record<ProxyKind, (dir: string, port: number, options: ProxyOptions) => Launch> = {
  tinyproxy,
  squid,
};

interface ProxyOptions {
  bind: string;
  auth?: { user: string; password: string };
}

/**
 * Starts a proxy (tinyproxy unless `kind` says squid) on a free loopback port with outgoing address
 * `bind` (127.0.0.0/8 is all loopback), with basic auth when `auth` is given (tinyproxy only).
 * `stop` and `start` keep the port.
 */
export async function startProxy(options: ProxyOptions & { kind?: ProxyKind }): Promise<LocalProxy> {
  const kind = options.kind ?? 'tinyproxy';
  const dir = mkdtempSync(join(tmpdir(), `cg-${kind}-`));
  // squid started as root runs as its own user, which writes its log and pid file here.
  chmodSync(dir, 0o777);
  const port = await freePort();
  const launch = LAUNCHERS[kind](dir, port, options);
  const configPath = join(dir, 'proxy.conf');
  writeFileSync(configPath, `${launch.config}\n`);
  const userinfo = options.auth ? `${options.auth.user}:${options.auth.password}@` : '';
  let child: ChildProcess | undefined;
  const proxy: LocalProxy = {
    kind,
    url: `http://${userinfo}127.0.0.1:${port}`,
    label: `127.0.0.1:${port}`,
    bind: options.bind,
    pid: () => child?.pid,
    log: () => {
      try {
        return readFileSync(join(dir, 'proxy.log'), 'utf8');
      } catch {
        return '';
      }
    },
    start: async () => {
      const [command, args] = launch.command(configPath);
      const spawned = spawn(command, args, { stdio: 'ignore' });
      child = spawned;
      // Not on PATH, say: the start fails with that, instead of an unhandled 'error' event.
      const failed = once(spawned, 'error').then(([error]) => {
        throw new Error(`${kind} could not start: ${(error as Error).message}`);
      });
      failed.catch(() => undefined);
      await Promise.race([waitUntilAccepting(kind, port, 20_000), failed]);
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

async function waitUntilAccepting(kind: ProxyKind, port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await accepts(port))) {
    if (Date.now() > deadline) throw new Error(`${kind} did not listen on ${port} within ${timeoutMs} ms`);
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
