import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAccount } from './support/common';
import { eventually } from './support/processes';
import { simJson } from './support/sim';
import { gw, startStack, type TestStack } from './support/stack';

/**
 * `pnpm webhooks:listen` as a developer runs it: a receiver registered for the tenant, each verified
 * event printed as a JSON line, the endpoint removed on Ctrl-C.
 */

const root = resolve(import.meta.dirname, '..');
let stack: TestStack;

beforeAll(async () => {
  stack = await startStack({ listener: true, webhooks: true, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  await connectAccount(stack, 'creator_demo');
});
afterAll(async () => {
  await stack?.stop();
});

describe('pnpm webhooks:listen', () => {
  it('prints the events of sandbox activity, then removes its endpoint on SIGINT', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', resolve(root, 'scripts/webhooks-listen.ts')], {
      cwd: root,
      env: { ...process.env, API_URL: `${stack.apiUrl}/api/fansly`, API_KEY: stack.keys.t1 },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    const lines: string[] = [];
    const notes: string[] = [];
    createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
    createInterface({ input: child.stderr }).on('line', (line) => notes.push(line));
    try {
      await eventually(
        async () => (notes.some((line) => line.startsWith('listening on')) ? true : undefined),
        15_000,
        'the receiver registered',
      );
      const listed = await gw(stack, 'GET', '/webhooks');
      expect(listed.body.data.webhooks).toHaveLength(1);

      const made = await simJson(stack, '/_sim/activity', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'message', creator: 'creator_demo', content: 'hi from the loop' }),
      });
      const printed = await eventually(
        async () =>
          lines
            .map((line) => JSON.parse(line))
            .find((event) => event.event === 'messages.received' && event.data.id === made.message.id),
        10_000,
        'the event printed',
      );
      expect(printed.data.content).toBe('hi from the loop');
    } finally {
      child.kill('SIGINT');
      await exited;
    }
    expect(notes.some((line) => line.startsWith('removed webhook'))).toBe(true);
    const after = await gw(stack, 'GET', '/webhooks');
    expect(after.body.data.webhooks).toHaveLength(0);
  });
});
