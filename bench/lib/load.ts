import { fork } from 'node:child_process';
import { resolve } from 'node:path';
import type { LoadResult, LoadSpec } from '../load/spec';
import { baseEnv, ROOT, stopChild, track } from './processes';

export type { LoadResult, LoadSpec } from '../load/spec';

/** A load whose answers were not all of the statuses its scenario expects: it measured nothing. */
export class InvalidLoad extends Error {
  constructor(
    readonly expected: string[],
    readonly statuses: Record<string, number>,
  ) {
    const counts = Object.entries(statuses)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([status, count]) => `${status}: ${count}`)
      .join(', ');
    super(`answers other than ${expected.join(' or ')}: ${counts}`);
    this.name = 'InvalidLoad';
  }
}

/**
 * Runs one load in a fresh process (bench/load/main.ts) and returns what it measured; rejects with
 * `InvalidLoad` when an answer, warm-up included, is not of the spec's `expect`ed statuses. The
 * process is killed if it outlives the spec's own bounds by a minute, so a stuck run cannot hang the
 * bench.
 */
export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const result = await loadResult(spec);
  if (Object.keys(result.totalStatuses).some((status) => !spec.expect.includes(status)))
    throw new InvalidLoad(spec.expect, result.totalStatuses);
  return result;
}

function loadResult(spec: LoadSpec): Promise<LoadResult> {
  if (spec.mode.kind === 'open' && spec.assign !== 'round-robin') {
    throw new Error('an open-loop load spreads requests round-robin');
  }
  const child = fork(resolve(ROOT, 'bench/load/main.ts'), [], {
    cwd: ROOT,
    execArgv: ['--import', 'tsx'],
    env: baseEnv(),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  track(child);
  const boundMs = spec.warmupMs + spec.durationMs + spec.timeoutMs + 60_000;
  return new Promise<LoadResult>((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`load process did not finish within ${boundMs} ms`));
      void stopChild(child, 1_000);
    }, boundMs);
    child.once('message', (message: { result?: LoadResult; error?: string }) => {
      clearTimeout(timer);
      if (message.result) resolvePromise(message.result);
      else reject(new Error(`load process failed: ${message.error ?? 'unknown'}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`load process exited (${code}) without a result`));
    });
    child.send(spec);
  });
}

/** Answers per second with one of `statuses` (e.g. only the operation's success status counts). */
export function rateOf(result: LoadResult, statuses: string[]): number {
  return statuses.reduce((sum, status) => sum + (result.ratePerSecond[status] ?? 0), 0);
}
