import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { GatewayError } from '@cg/contract';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { sendError } from './errors';

export const CONSOLE_PATH = '/console';
/** Where `pnpm --filter @cg/console build` writes the console (apps/console/dist). */
export const CONSOLE_DIST = resolve(import.meta.dirname, '../../console/dist');

/**
 * The console's pages may load scripts, styles and data from the gateway only, never inline script,
 * and may not be framed. Its scripts are files of the build (no inline bootstrap), so this is enough.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The web console (apps/console), as static files under `/console/`: no API key is needed to load
 * them (the key is typed into the page and sent by the page's own requests). Hashed assets are kept
 * for a year; index.html is asked for again each time, so a new build is seen at once. Without a
 * build the API still starts, and `/console` says how to make one.
 */
export async function registerConsole(
  app: FastifyInstance,
  options: { platform: string; dist?: string },
): Promise<void> {
  const dist = options.dist ?? CONSOLE_DIST;
  await app.register(async (scope) => {
    scope.addHook('onSend', async (_request, reply) => {
      reply.header('content-security-policy', CONSOLE_CSP);
      reply.header('x-content-type-options', 'nosniff');
      reply.header('x-frame-options', 'DENY');
      reply.header('referrer-policy', 'no-referrer');
    });
    // What the page needs to know of this gateway: the API's path word (`/api/<platform>`).
    scope.get(`${CONSOLE_PATH}/config.json`, { schema: { hide: true } }, async (_request, reply) => {
      reply.header('cache-control', 'no-cache');
      return { platform: options.platform };
    });
    if (!existsSync(join(dist, 'index.html'))) {
      const missing = new GatewayError(
        'NOT_FOUND',
        'the console is not built: run `pnpm --filter @cg/console build` (pnpm start builds it)',
      );
      for (const url of [CONSOLE_PATH, `${CONSOLE_PATH}/*`])
        scope.get(url, { schema: { hide: true } }, async (request, reply) =>
          sendError(reply, request, missing),
        );
      return;
    }
    scope.get(CONSOLE_PATH, { schema: { hide: true } }, async (_request, reply) =>
      reply.redirect(`${CONSOLE_PATH}/`),
    );
    await scope.register(fastifyStatic, {
      root: dist,
      prefix: `${CONSOLE_PATH}/`,
      cacheControl: false,
      schemaHide: true,
      setHeaders(reply, path) {
        const hashed = path.startsWith(join(dist, 'assets'));
        reply.header('cache-control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  });
}
