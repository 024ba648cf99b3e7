import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { listenOn, loadDotEnv } from '@cg/config';
import { pino } from 'pino';
import { buildSim } from './index';
import { MAX_EXTRA_CREATORS, type SimOptions, type SimTls } from './options';

/** Process entry: the only place that reads the environment. */

loadDotEnv();

function intFromEnv(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer between ${min} and ${max} (got "${raw}")`);
  }
  return value;
}

function readEnv(): { port: number; host: string; logLevel: string; options: Partial<SimOptions> } {
  return {
    port: intFromEnv('SIM_PORT', 4010, 0, 65_535),
    host: process.env.SIM_HOST || '127.0.0.1',
    logLevel: process.env.SIM_LOG_LEVEL || 'warn',
    options: {
      seed: intFromEnv('SIM_SEED', 1, 0, 0xffff_ffff),
      extraCreators: intFromEnv('SIM_EXTRA_CREATORS', 0, 0, MAX_EXTRA_CREATORS),
      activityPerMinute: intFromEnv('SIM_ACTIVITY_PER_MINUTE', 0, 0, 60_000),
      tls: tlsFromEnv(),
    },
  };
}

/** A file path setting: unset (or empty) is undefined. */
function fileFromEnv(name: string): string | undefined {
  const raw = process.env[name];
  return raw === undefined || raw === '' ? undefined : raw;
}

function readPem(name: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new Error(`${name}: cannot read ${path} (${code})`);
  }
}

/** https when both the certificate and its key are given, http when neither; anything else stops it. */
function tlsFromEnv(): SimTls | null {
  const certPath = fileFromEnv('SIM_TLS_CERT');
  const keyPath = fileFromEnv('SIM_TLS_KEY');
  if (certPath === undefined && keyPath === undefined) return null;
  if (certPath === undefined || keyPath === undefined)
    throw new Error(
      `SIM_TLS_CERT and SIM_TLS_KEY go together: both for https, neither for http (only ${certPath === undefined ? 'SIM_TLS_KEY' : 'SIM_TLS_CERT'} is set)`,
    );
  const tls = { cert: readPem('SIM_TLS_CERT', certPath), key: readPem('SIM_TLS_KEY', keyPath) };
  try {
    createSecureContext(tls);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`SIM_TLS_CERT and SIM_TLS_KEY are not a PEM certificate and its key (${reason})`);
  }
  return tls;
}

async function main(): Promise<void> {
  const { port, host, logLevel, options } = readEnv();
  // Start-up and shutdown lines always show; the server itself logs at SIM_LOG_LEVEL (default warn,
  // so thousands of requests per second do not pay for logging).
  const lifecycle = pino({ name: 'platform-sim', level: 'info' });
  const app = await buildSim({ ...options, logger: pino({ name: 'platform-sim', level: logLevel }) });
  const url = await listenOn('SIM_PORT', port, () => app.listen({ port, host }));
  lifecycle.info(
    { url, seed: options.seed, extraCreators: options.extraCreators },
    `platform sandbox listening on ${url}`,
  );

  let closing = false;
  const shutdown = (signal: string): void => {
    if (closing) return;
    closing = true;
    lifecycle.info({ signal }, 'platform sandbox shutting down');
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        lifecycle.error({ err: error }, 'platform sandbox failed to close');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(
    `platform sandbox failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
