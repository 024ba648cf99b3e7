import { type Static, type TObject, Type } from 'typebox';
import { Value } from 'typebox/value';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * Parses environment variables against a TypeBox object schema: applies defaults, converts strings
 * to the declared types, and fails fast naming the first bad variable. Unknown variables are ignored.
 */
export function parseEnv<T extends TObject>(schema: T, env: Record<string, string | undefined>): Static<T> {
  const picked: Record<string, unknown> = {};
  for (const key of Object.keys(schema.properties)) {
    const raw = env[key];
    if (raw !== undefined && raw !== '') picked[key] = raw;
  }
  const value = Value.Convert(schema, Value.Default(schema, picked));
  if (!Value.Check(schema, value)) {
    const [first] = Value.Errors(schema, value);
    const path = first?.instancePath.replace(/^\//, '') ?? '';
    if (path === '') throw new ConfigError(`missing environment variable ${missingRequired(schema, picked)}`);
    const choices = (schema.properties[path] as { anyOf?: { const?: unknown }[] } | undefined)?.anyOf
      ?.map((option) => option.const)
      .filter((choice) => choice !== undefined);
    const reason = choices?.length ? `must be one of ${choices.join(', ')}` : (first?.message ?? 'invalid');
    throw new ConfigError(`invalid environment variable ${path}: ${reason}`);
  }
  return value as Static<T>;
}

function missingRequired(schema: TObject, picked: Record<string, unknown>): string {
  const missing = (schema.required ?? []).filter((key) => picked[key] === undefined);
  return missing.join(', ') || '(unknown)';
}

/** A positive integer variable with a default; `what` documents the unit in the schema. */
export const Int = (defaultValue: number, description: string, minimum = 0, maximum?: number) =>
  Type.Integer({
    default: defaultValue,
    minimum,
    ...(maximum === undefined ? {} : { maximum }),
    description,
  });

/**
 * What a process should print before exiting when it cannot start with its environment: one line
 * naming the setting, not a stack trace. Undefined for any other failure (rethrow it).
 */
export function startupProblem(error: unknown): string | undefined {
  if (error instanceof ConfigError) return error.message;
  // The keyring's own error (`@cg/secrets`): its setting is ENCRYPTION_KEY. Never carries the key.
  if (error instanceof Error && error.name === 'SecretsError')
    return `invalid environment variable ENCRYPTION_KEY: ${error.message}`;
  return undefined;
}

/**
 * Opens the port a setting names with `listen`. A port another process holds is the setting's
 * fault: a `ConfigError` naming the setting and the port (`METRICS_PORT 9464 is in use`), which
 * `startOrExit` prints as its one line. Any other failure is rethrown.
 */
export async function listenOn<T>(setting: string, port: number, listen: () => Promise<T>): Promise<T> {
  try {
    return await listen();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new ConfigError(`${setting} ${port} is in use`);
    throw error;
  }
}

/**
 * Runs a process's start-up; when its environment is at fault, prints `<name>: <problem>` and exits
 * 1 instead of throwing a stack trace. Any other failure is rethrown.
 */
export async function startOrExit<T>(name: string, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    const problem = startupProblem(error);
    if (problem === undefined) throw error;
    process.stderr.write(`${name}: ${problem}\n`);
    process.exit(1);
  }
}
