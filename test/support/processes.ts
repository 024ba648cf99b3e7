import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { freePort } from '../../scripts/lib/redis';
import { keepLog } from './logs';

const root = resolve(import.meta.dirname, '../..');

/**
 * A worker in a process of its own, so a test can SIGKILL or SIGTERM it like an operator would.
 * With `output`, every line it writes (at `LOG_LEVEL` debug) goes there; without, what it writes at
 * warn and above is kept in the test's log (test/support/logs.ts), shown if the test fails.
 */
export function spawnWorker(env: Record<string, string>, output?: (text: string) => void) {
  return spawnApp('worker', env, output);
}

/** One of the gateway's apps (apps/<name>/src/main.ts) in a process of its own. */
export function spawnApp(
  name: 'api' | 'worker' | 'listener' | 'webhooks',
  env: Record<string, string>,
  output?: (text: string) => void,
): {
  child: ChildProcess;
  exited: Promise<number | null>;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(root, `apps/${name}/src/main.ts`)], {
    cwd: root,
    env: { ...process.env, ...env, LOG_LEVEL: output ? 'debug' : 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const said = output ?? keepLog;
  child.stdout?.on('data', (chunk: Buffer) => said(chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => said(chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return { child, exited };
}

/**
 * An API process of its own on a free loopback port, once its `/healthz` answers: `url` is its
 * origin. `env` is the gateway's (a stack's `env`), with the test's own settings on top.
 */
export async function spawnApi(env: Record<string, string>, output?: (text: string) => void) {
  const port = await freePort();
  const spawned = spawnApp('api', { ...env, PORT: String(port), HOST: '127.0.0.1' }, output);
  const url = `http://127.0.0.1:${port}`;
  await eventually(
    async () => ((await fetch(`${url}/healthz`).catch(() => null))?.ok ? true : undefined),
    // A process start on a loaded machine takes a while.
    60_000,
    'API process up',
  );
  return { ...spawned, url };
}

export const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 20_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await check();
    if (value !== undefined) return value;
    await sleep(50);
  }
  throw new Error(`${what} not reached within ${timeoutMs} ms`);
}

/**
 * A crash: starts a worker in a process of its own, waits until `reached` says its work is at the
 * platform, and SIGKILLs it (it is killed whatever happens, so no test leaves one running).
 */
export async function crashWorkerOnceAt(
  env: Record<string, string>,
  reached: () => Promise<boolean>,
  what: string,
): Promise<void> {
  const worker = spawnWorker(env);
  try {
    await eventually(async () => ((await reached()) ? true : undefined), 20_000, what);
  } finally {
    worker.child.kill('SIGKILL');
    await worker.exited;
  }
}
