import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeAll, expect, it } from 'vitest';
import { CONSOLE_DIST, ensureConsoleBuilt } from '../scripts/lib/console-build';

// The console's production build: small enough (≤ 250 KB of JavaScript gzipped), and loadable under
// the API's CSP (no inline script; every asset under /console/).

const BUDGET_BYTES = 250 * 1024;

beforeAll(async () => {
  await ensureConsoleBuilt(90_000);
}, 120_000);

it('keeps its JavaScript within 250 KB gzipped', () => {
  const assets = join(CONSOLE_DIST, 'assets');
  const scripts = readdirSync(assets).filter((name) => name.endsWith('.js'));
  expect(scripts.length).toBeGreaterThan(0);
  const gzipped = scripts.reduce((sum, name) => sum + gzipSync(readFileSync(join(assets, name))).length, 0);
  expect(gzipped).toBeLessThanOrEqual(BUDGET_BYTES);
});

it('has no inline script and loads everything from /console/', () => {
  const html = readFileSync(join(CONSOLE_DIST, 'index.html'), 'utf8');
  const scripts = [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)];
  expect(scripts.length).toBeGreaterThan(0);
  for (const [tag, body] of scripts) {
    expect(tag).toMatch(/\ssrc="\/console\/assets\/[^"]+\.js"/);
    expect(body?.trim()).toBe('');
  }
  expect(html).not.toMatch(/\son[a-z]+=/i);
  for (const [, url] of html.matchAll(/(?:src|href)="([^"]+)"/g)) expect(url).toMatch(/^\/console\//);
});
