import { type ChildProcess, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { type Dispatcher, fetch as undiciFetch } from 'undici';

/** The repository root: every entry point below is resolved from here, whatever the caller's cwd. */
export const ROOT = resolve(import.meta.dirname, '../..');

export interface Managed {
  readonly name: string;
  readonly child: ChildProcess;
  /** True while the process runs. */
  alive(): boolean;
  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

const running = new Set<Managed>();

/**
 * The environment every child starts from: only what a Node process needs to run, so a caller's
 * REDIS_URL, WORKER_CONCURRENCY or LOG_LEVEL can never change what a scenario measures.
 */
export function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ']) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return env;
}

export interface StartOptions {
  /** Write a V8 CPU profile of the whole process life into this folder (`node --cpu-prof`). */
  cpuProfDir?: string | undefined;
  /** Node flags before the entry, e.g. `--max-old-space-size`. */
  nodeFlags?: string[];
}

/**
 * Starts `node --import tsx <entry>` like `scripts/start-stack.ts` does. Only pino lines at warn and
 * above (and anything that is not JSON, such as a crash trace) are shown: the children's start-up
 * lines would otherwise bury the results.
 */
export function startNode(
  name: string,
  entry: string,
  env: Record<string, string>,
  options: StartOptions = {},
): Managed {
  // One folder per process with V8's own file names: the tsx loader thread writes a profile too,
  // and a fixed name would let it overwrite the main thread's.
  const profile = options.cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', join(options.cpuProfDir, name)] : [];
  const child = spawn(
    process.execPath,
    [...(options.nodeFlags ?? []), ...profile, '--import', 'tsx', resolve(ROOT, entry)],
    { cwd: ROOT, env: { ...baseEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  for (const stream of [child.stdout, child.stderr]) {
    if (stream) createInterface({ input: stream }).on('line', (line) => forward(name, line));
  }
  let stopping = false;
  child.once('exit', (code, signal) => {
    if (!stopping) process.stderr.write(`[${name}] exited unexpectedly (${signal ?? code})\n`);
  });
  const managed: Managed = {
    name,
    child,
    alive: () => child.exitCode === null && child.signalCode === null,
    stop: async (graceMs = 15_000) => {
      stopping = true;
      running.delete(managed);
      await stopChild(child, graceMs);
    },
  };
  running.add(managed);
  return managed;
}

function forward(name: string, line: string): void {
  if (line.startsWith('{')) {
    try {
      const level = (JSON.parse(line) as { level?: unknown }).level;
      if (typeof level === 'number' && level < 40) return;
    } catch {
      // not a pino line: show it
    }
  }
  process.stderr.write(`[${name}] ${line}\n`);
}

export function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      done();
    });
    child.kill('SIGTERM');
  });
}

/** Children started some other way (the load generator's fork) that `stopAll` must also end. */
const others = new Set<ChildProcess>();

export function track(child: ChildProcess): void {
  others.add(child);
  child.once('exit', () => others.delete(child));
}

/** Stops every process still running (used on Ctrl-C and after a failed scenario). */
export async function stopAll(): Promise<void> {
  await Promise.all([
    ...[...running].map((managed) => managed.stop(5_000)),
    ...[...others].map((child) => stopChild(child, 2_000)),
  ]);
}

/** Waits until `url` answers 2xx; `dispatcher` for an https server this process must trust. */
export async function waitForHttp(
  url: string,
  timeoutMs = 60_000,
  process?: Managed,
  dispatcher?: Dispatcher,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (process && !process.alive()) throw new Error(`${process.name} exited before ${url} answered`);
    try {
      const response = dispatcher ? await undiciFetch(url, { dispatcher }) : await fetch(url);
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

export const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));
