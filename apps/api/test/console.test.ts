import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP, registerConsole } from '../src/console';

// The console's files as the API serves them, from a build of this test's own (or none).

const dist = mkdtempSync(join(tmpdir(), 'cg-console-'));
mkdirSync(join(dist, 'assets'));
writeFileSync(
  join(dist, 'index.html'),
  '<!doctype html><script type="module" src="/console/assets/a-1.js"></script>',
);
writeFileSync(join(dist, 'assets', 'a-1.js'), 'export {};');
afterAll(() => rmSync(dist, { recursive: true, force: true }));

async function consoleApp(from: string) {
  const app = Fastify();
  await registerConsole(app, { platform: 'fansly', dist: from });
  return app;
}

describe('the console', () => {
  it('serves index.html uncached and hashed assets for a year, both under the CSP', async () => {
    const app = await consoleApp(dist);
    const index = await app.inject({ url: '/console/' });
    expect(index.statusCode).toBe(200);
    expect(index.headers['cache-control']).toBe('no-cache');
    expect(index.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(index.headers['x-content-type-options']).toBe('nosniff');
    const asset = await app.inject({ url: '/console/assets/a-1.js' });
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers['content-security-policy']).toBe(CONSOLE_CSP);
    const bare = await app.inject({ url: '/console' });
    expect(bare.statusCode).toBe(302);
    expect(bare.headers.location).toBe('/console/');
    expect((await app.inject({ url: '/console/config.json' })).json()).toEqual({ platform: 'fansly' });
    await app.close();
  });

  it('answers 404 saying how to build it when there is no build', async () => {
    const app = await consoleApp(join(dist, 'absent'));
    for (const url of ['/console', '/console/', '/console/assets/a-1.js']) {
      const answer = await app.inject({ url });
      expect(answer.statusCode).toBe(404);
      expect(answer.json()).toMatchObject({
        code: 'NOT_FOUND',
        message: expect.stringContaining('pnpm --filter @cg/console build'),
      });
      expect(answer.headers['content-security-policy']).toBe(CONSOLE_CSP);
    }
    await app.close();
  });

  it('keeps scripts to its own files: no inline script, no framing', () => {
    expect(CONSOLE_CSP).toContain("default-src 'self'");
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).toContain("frame-ancestors 'none'");
    expect(CONSOLE_CSP).not.toMatch(/unsafe-(inline|eval)/);
  });
});
