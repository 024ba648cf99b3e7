import { resolve } from 'node:path';
import { ConfigError } from './env';

/**
 * The `.env` the processes of this repository read: the one at the repository root, found from this
 * file's place in it, so that `pnpm start` (run at the root), `pnpm --filter @cg/api start` (run in
 * apps/api) and a process started from any other directory all read the same file. A `.env` in the
 * current directory is not read.
 */
export const DOTENV_FILE = resolve(import.meta.dirname, '../../../.env');

/**
 * Reads a `.env` file into `process.env`, when there is one, with Node's own parser
 * (`process.loadEnvFile`: `NAME=value` lines, `#` comments, quotes, `export ` prefixes). Call it first
 * thing in a process's entry point, before anything reads the environment.
 *
 * - A variable already set in the environment (even to an empty string) is kept: the file never
 *   overrides what the process was started with.
 * - A line with an empty value sets nothing, as an empty variable is an unset one to the settings
 *   (`parseEnv`). `.env.example` holds every setting commented out, so a copy of it changes nothing
 *   until a line is uncommented.
 * - A comment is never a variable (Node 20 reads `# NAME=x` on a last line without a newline as one
 *   named `# NAME`: it is removed).
 * - A missing file is no error. Called without `file` under the test runner (`VITEST` set, which the
 *   processes a test starts inherit), the repository's `.env` is not read: tests do not depend on a
 *   developer's local settings.
 *
 * Returns the names it set, sorted.
 */
export function loadDotEnv(file?: string): string[] {
  if (file === undefined && process.env.VITEST !== undefined) return [];
  const path = file ?? DOTENV_FILE;
  const before = new Set(Object.keys(process.env));
  try {
    process.loadEnvFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return [];
    throw new ConfigError(`cannot read ${path} (${code ?? 'unreadable'})`);
  }
  const set: string[] = [];
  for (const name of Object.keys(process.env)) {
    if (before.has(name)) continue;
    const value = process.env[name];
    // Node 20 reads a comment on a last line without a newline (`# NAME=x`) as a variable `# NAME`.
    if (name.startsWith('#') || value === '') delete process.env[name];
    else set.push(name);
  }
  return set.sort();
}
