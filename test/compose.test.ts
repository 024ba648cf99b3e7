import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

// No Docker engine runs where these tests run, so the compose file is checked as data.
const root = resolve(import.meta.dirname, '..');
const compose = parse(readFileSync(resolve(root, 'docker-compose.yml'), 'utf8')) as {
  services: Record<
    string,
    {
      image?: string;
      build?: string;
      command?: string[];
      ports?: string[];
      environment?: Record<string, string>;
    }
  >;
};

/** `apps/<name>/package.json` and `packages/<name>/package.json`: the workspaces. */
const workspaceManifests = () =>
  ['apps', 'packages'].flatMap((dir) =>
    readdirSync(resolve(root, dir))
      .filter((name) => existsSync(resolve(root, dir, name, 'package.json')))
      .map((name) => `${dir}/${name}/package.json`),
  );

describe('docker-compose.yml', () => {
  it('runs redis, the sandbox, the API, the worker, the listener and the webhook delivery', () => {
    expect(Object.keys(compose.services).sort()).toEqual([
      'api',
      'listener',
      'redis',
      'sandbox',
      'webhooks',
      'worker',
    ]);
  });

  it('persists Redis with AOF and never evicts', () => {
    const command = compose.services.redis?.command?.join(' ') ?? '';
    expect(command).toContain('--appendonly yes');
    expect(command).toContain('--maxmemory-policy noeviction');
  });

  it('builds the apps from the repository Dockerfile with their entry points', () => {
    for (const [name, entry] of [
      ['api', 'apps/api/src/main.ts'],
      ['worker', 'apps/worker/src/main.ts'],
      ['webhooks', 'apps/webhooks/src/main.ts'],
      ['listener', 'apps/listener/src/main.ts'],
      ['sandbox', 'apps/platform-sim/src/main.ts'],
    ] as const) {
      expect(compose.services[name]?.build).toBe('.');
      expect(compose.services[name]?.command).toContain(entry);
    }
    expect(readFileSync(resolve(root, 'Dockerfile'), 'utf8')).toContain('pnpm install --frozen-lockfile');
  });

  it('installs every workspace before copying the sources, and builds the console into the image', () => {
    const dockerfile = readFileSync(resolve(root, 'Dockerfile'), 'utf8');
    const install = dockerfile.indexOf('RUN pnpm install');
    for (const manifest of workspaceManifests()) {
      const copied = dockerfile.indexOf(`COPY ${manifest} `);
      expect(copied, manifest).toBeGreaterThan(-1);
      expect(copied, manifest).toBeLessThan(install);
    }
    // Development dependencies too (tsx runs the apps, Vite builds the console): production after.
    expect(dockerfile.indexOf('NODE_ENV=production')).toBeGreaterThan(install);
    expect(dockerfile).toContain('RUN pnpm --filter @cg/console build');
  });

  it('publishes the documented ports and wires the gateway to Redis and the sandbox', () => {
    expect(compose.services.api?.ports).toContain('3000:3000');
    expect(compose.services.sandbox?.ports).toContain('4010:4010');
    for (const name of ['api', 'worker', 'listener', 'webhooks']) {
      const env = compose.services[name]?.environment ?? {};
      expect(env.REDIS_URL).toBe('redis://redis:6379');
      expect(env.PLATFORM_URL).toBe('http://sandbox:4010');
      expect(env.PLATFORM_WS_URL).toBe('ws://sandbox:4010/?v=3');
      expect(env.ENCRYPTION_KEY).toBeDefined();
    }
  });
});
