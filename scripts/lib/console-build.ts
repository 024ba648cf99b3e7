import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

// The web console's production build (apps/console/dist, served by the API under /console/): made
// again only when a source it is built from (its own, or the SDK's it bundles) is newer than it.

const root = resolve(import.meta.dirname, '../..');
export const CONSOLE_DIR = resolve(root, 'apps/console');
export const CONSOLE_DIST = resolve(CONSOLE_DIR, 'dist');
const SOURCES = [
  'apps/console/src',
  'apps/console/index.html',
  'apps/console/public',
  'apps/console/vite.config.ts',
  'apps/console/package.json',
  'packages/sdk/src',
];
const LOCK = resolve(CONSOLE_DIR, '.building');
const LOCK_STALE_MS = 120_000;

function newest(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

/** Whether apps/console/dist is missing or older than a source it is built from. */
export function consoleBuildStale(): boolean {
  const built = join(CONSOLE_DIST, 'index.html');
  if (!existsSync(built)) return true;
  const builtAt = statSync(built).mtimeMs;
  return SOURCES.some((source) => newest(resolve(root, source)) > builtAt);
}

/**
 * Builds the console when it is stale (`vite build`, quiet, at most `timeoutMs`). One build at a time
 * (a lock directory): a second caller waits for the first and then finds it fresh. The build is made
 * beside dist and moved into place, so a reader never sees half of one. Answers whether it built.
 */
export async function ensureConsoleBuilt(timeoutMs = 120_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!takeLock()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for another console build');
    await new Promise((done) => setTimeout(done, 200));
  }
  try {
    if (!consoleBuildStale()) return false;
    const out = resolve(CONSOLE_DIR, `.dist-${process.pid}`);
    rmSync(out, { recursive: true, force: true });
    await promisify(execFile)(
      resolve(CONSOLE_DIR, 'node_modules/.bin/vite'),
      ['build', '--outDir', out, '--emptyOutDir', '--logLevel', 'error'],
      { cwd: CONSOLE_DIR, timeout: Math.max(1_000, deadline - Date.now()) },
    );
    const old = `${CONSOLE_DIST}.old-${process.pid}`;
    if (existsSync(CONSOLE_DIST)) renameSync(CONSOLE_DIST, old);
    renameSync(out, CONSOLE_DIST);
    rmSync(old, { recursive: true, force: true });
    return true;
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

function takeLock(): boolean {
  try {
    mkdirSync(LOCK);
    return true;
  } catch {
    // A lock left by a build that died: taken over once it is old.
    if (existsSync(LOCK) && Date.now() - statSync(LOCK).mtimeMs > LOCK_STALE_MS) {
      rmSync(LOCK, { recursive: true, force: true });
      return takeLock();
    }
    return false;
  }
}
