import { loadGatewayConfig } from '@cg/config';
import { createListener } from '@cg/listener';
import { ListenJobs } from '@cg/queue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAccount } from '../support/common';
import { testLogger } from '../support/logs';
import { eventually, spawnApp } from '../support/processes';
import { simJson } from '../support/sim';
import { account, gw, scanKeys, startStack, type TestStack } from '../support/stack';

/**
 * Two listener processes: one account's connection is held by one of them at a time, and when its
 * holder is SIGKILLed the other takes it over within LISTENER_FAILOVER_MS, then backfills what came
 * in between, so no fan's message is missing and none is there twice.
 */

const FAILOVER_MS = 3_000;
let stack: TestStack;
const listeners: ReturnType<typeof spawnApp>[] = [];

beforeAll(async () => {
  stack = await startStack({ env: { LISTENER_FAILOVER_MS: String(FAILOVER_MS), LISTENER_PING_MS: '1000' } });
});
afterAll(async () => {
  for (const listener of listeners) listener.child.kill('SIGKILL');
  await Promise.all(listeners.map((listener) => listener.exited));
  await stack?.stop();
});

const realtime = async (): Promise<{ current: number; maxAtOnce: number }> => {
  const seen = await simJson(stack, '/_sim/observations');
  return (
    seen.accounts[account(stack, 'creator_demo').platformAccountId]?.realtime ?? { current: 0, maxAtOnce: 0 }
  );
};

const message = async (content: string): Promise<string> => {
  const made = await simJson(stack, '/_sim/activity', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'message', creator: 'creator_demo', content }),
  });
  return made.message.id;
};

async function receivedIds(): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const response = await gw(
      stack,
      'GET',
      `/events?event=messages.received&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
    );
    ids.push(...response.body.data.events.map((e: { data: { id: string } }) => e.data.id));
    cursor = response.body.data.nextCursor;
  } while (cursor !== null);
  return ids;
}

describe('listener failover', () => {
  it('another listener takes over a killed one’s account within the failover time, missing nothing', async () => {
    const env = { ...stack.env, LISTENER_FAILOVER_MS: String(FAILOVER_MS), LISTENER_PING_MS: '1000' };
    const first = spawnApp('listener', env);
    listeners.push(first);
    await connectAccount(stack, 'creator_demo');
    await eventually(
      async () => ((await realtime()).current === 1 ? true : undefined),
      15_000,
      'held by the first',
    );
    // The second starts once the first holds the account, so the first is the one killed; it is
    // killed once the second runs, so the takeover time leaves out the second's start.
    let secondSaid = '';
    listeners.push(spawnApp('listener', env, (text) => (secondSaid += text)));
    await eventually(
      async () => (secondSaid.includes('listener started') ? true : undefined),
      30_000,
      'the second listener started',
    );
    const before = [await message('before 1'), await message('before 2')];
    await eventually(
      async () => ((await receivedIds()).length >= 2 ? true : undefined),
      5_000,
      'live events',
    );

    first.child.kill('SIGKILL');
    await first.exited;
    const killedAt = Date.now();
    const during = [await message('during 1'), await message('during 2'), await message('during 3')];
    await eventually(
      async () => ((await realtime()).current === 1 ? true : undefined),
      3 * FAILOVER_MS,
      'taken over',
    );
    const tookOverMs = Date.now() - killedAt;
    const after = [await message('after 1')];

    const expected = [...before, ...during, ...after];
    const ids = await eventually(
      async () => {
        const found = await receivedIds();
        return expected.every((id) => found.includes(id)) ? found : undefined;
      },
      15_000,
      'every message as an event',
    );
    for (const id of expected) expect(ids.filter((other) => other === id)).toHaveLength(1);
    // The sandbox counts connections per account: never two at once.
    expect((await realtime()).maxAtOnce).toBe(1);
    // Lock expiry plus the stalled check, plus the reconnect's first backoff at most.
    expect(tookOverMs).toBeLessThan(FAILOVER_MS + 3_000);
  });
});

describe('listener start', () => {
  it('holds the accounts connected before any listener ran, whose listen job is missing', async () => {
    const own = await startStack({ env: { LISTENER_PING_MS: '1000' } });
    try {
      const connected = await connectAccount(own, 'creator_2fa');
      // As if connected before listeners existed: no listen job.
      const jobs = new ListenJobs(own.redis, own.prefix);
      await jobs.unwatch('t1', connected);
      await jobs.close();
      const config = loadGatewayConfig(own.env);
      const listener = await createListener(config, testLogger());
      listener.start();
      try {
        const platformAccountId = account(own, 'creator_2fa').platformAccountId;
        await eventually(
          async () => {
            const seen = await simJson(own, '/_sim/observations');
            return seen.accounts[platformAccountId]?.realtime?.current === 1 ? true : undefined;
          },
          10_000,
          'held after the start',
        );
      } finally {
        await listener.close();
      }
    } finally {
      await own.stop();
    }
  });
});

describe('rebalancing', () => {
  it('a listener that joins gets a share as holds rotate, and no account is ever held twice', async () => {
    const own = await startStack({ env: { LISTENER_PING_MS: '1000', LISTENER_ROTATE_MS: '1500' } });
    const started: ReturnType<typeof spawnApp>[] = [];
    try {
      const env = { ...own.env, LISTENER_ROTATE_MS: '1500' };
      started.push(spawnApp('listener', env));
      const usernames = ['creator_demo', 'creator_2fa'];
      for (const username of usernames) await connectAccount(own, username);
      const held = async () => {
        const seen = await simJson(own, '/_sim/observations');
        return usernames.map((u) => seen.accounts[account(own, u).platformAccountId]?.realtime ?? {});
      };
      await eventually(
        async () => ((await held()).every((r: { current?: number }) => r.current === 1) ? true : undefined),
        15_000,
        'both held by the first',
      );
      started.push(spawnApp('listener', env));
      // Who holds each account: its listen job's lock names the holding worker (`<worker id>:<n>`).
      const holders = async () => {
        const owners = new Set<string>();
        for (const key of await scanKeys(own.redis, own.prefix))
          if (/:listen:listen-[0-9a-f]+:lock$/.test(key))
            owners.add(String(await own.redis.get(key)).split(':')[0] ?? '');
        return owners;
      };
      await eventually(
        async () => ((await holders()).size === 2 ? true : undefined),
        20_000,
        'both listeners holding',
      );
      for (const realtime of await held()) expect((realtime as { maxAtOnce?: number }).maxAtOnce).toBe(1);
    } finally {
      for (const listener of started) listener.child.kill('SIGKILL');
      await Promise.all(started.map((listener) => listener.exited));
      await own.stop();
    }
  });
});
