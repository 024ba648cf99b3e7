import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Events, eventId } from '@cg/events';
import { ApiKeyStore, storeKeys } from '@cg/store';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectAccount } from '../support/common';
import { type ConsoleTab, openConsole, signIn, startConsoleStack, WAIT } from '../support/console-browser';
import { clearFaults, observations, sawRequests, slowDown } from '../support/sim';
import { account, gw, stackEvents, type TestStack } from '../support/stack';

// The console's pages beyond Accounts and Keys, in the real browser against a whole stack (with the
// webhook delivery process and a receiver on loopback): an account's own page, the live activity,
// the audit log, usage, webhooks, and what a read key is offered on each.

const SLOW = { timeout: 20_000 };

let stack: TestStack;
let browser: Browser;
let events: Events;
let receiver: Server;
let base: string;
let accountId: string;
let tab: ConsoleTab | undefined;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
  });
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  ({ stack, browser } = await startConsoleStack({
    webhooks: true,
    env: { WEBHOOK_ALLOW_PRIVATE: 'true', ACCOUNT_CONCURRENCY: '1' },
  }));
  events = stackEvents(stack);
  accountId = await connectAccount(stack, 'creator_demo');
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await events?.close();
  await stack?.stop();
  receiver?.close();
});
afterEach(async () => {
  expect(tab?.complaints ?? []).toEqual([]);
  await tab?.context.close();
  tab = undefined;
});

/** A fresh profile signed in with this key, on the page behind the nav link of this name. */
async function openPage(key: string, link: string, heading = link): Promise<Page> {
  tab = await openConsole(browser, stack);
  await signIn(tab.page, key);
  await tab.page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: link }).click();
  await tab.page.getByRole('heading', { name: heading, exact: true }).waitFor(WAIT);
  return tab.page;
}

/** A request answered 202 at once: its job id. */
async function submit(path: string): Promise<string> {
  const answer = await gw(stack, 'GET', path, { headers: { prefer: 'respond-async' } });
  expect(answer.status).toBe(202);
  return (answer.headers.get('location') ?? '').split('/').at(-1) as string;
}

async function readKey(): Promise<string> {
  const made = await new ApiKeyStore(stack.redis, storeKeys(stack.prefix)).create('t1', {
    access: 'read',
    accounts: null,
  });
  return made.key;
}

let published = 0;
const publish = (content: string) =>
  events.publishEvent('t1', {
    id: eventId([`console-${published++}`, Math.random()]),
    event: 'messages.received',
    accountId,
    data: { id: String(published), content },
  });

describe('account page', () => {
  it('shows the whole status, a job made through the API with its answer, and a week of usage', async () => {
    const jobId = await submit(`/${accountId}/me`);
    const page = await openPage(stack.keys.t1, 'Accounts');
    await page.locator(`tr[data-account="${accountId}"]`).getByRole('link').click();
    await page.getByRole('heading', { name: /^Account / }).waitFor(WAIT);
    expect(page.url()).toContain(`#/accounts/${accountId}`);
    const status = page.getByLabel('Status');
    await status.locator('[data-status="lane"]').getByText('backlog').waitFor(WAIT);
    for (const group of ['connection', 'session', 'platform', 'realtime'])
      expect(await status.locator(`[data-status="${group}"]`).count()).toBe(1);
    const job = page.locator(`li[data-job="${jobId}"]`);
    await job.getByText('completed').waitFor(SLOW);
    await job.locator('summary').click();
    await expect.poll(() => job.locator('pre').textContent(), WAIT).toContain('"statusCode": 200');
    await page.getByRole('img', { name: 'Requests per day' }).waitFor(WAIT);
    expect(await page.locator('svg.chart g[data-bar]').count()).toBe(7);
  });

  it('cancels a waiting job for a write key', async () => {
    // One call at a time per account (the stack's ACCOUNT_CONCURRENCY): a slow read holds the slot,
    // and a write sent behind it waits.
    const platformId = account(stack, 'creator_demo').platformAccountId;
    const seen = (await observations(stack, platformId)).requests['GET /api/v1/account/me'] ?? 0;
    await slowDown(stack, 'creator_demo', '/api/v1/account/me', 4_000);
    try {
      await submit(`/${accountId}/me`);
      await sawRequests(stack, 'creator_demo', 'GET /api/v1/account/me', seen + 1);
      const write = await gw(stack, 'POST', `/${accountId}/tracking-links`, {
        headers: { prefer: 'respond-async' },
        body: { label: 'Never' },
      });
      expect(write.status).toBe(202);
      const jobId: string = write.body.data.jobId;
      const page = await openPage(stack.keys.t1, 'Accounts');
      await page.goto(`${stack.apiUrl}/console/#/accounts/${accountId}`);
      const job = page.locator(`li[data-job="${jobId}"]`);
      await job.getByRole('button', { name: 'Cancel' }).click(WAIT);
      await job.getByRole('button', { name: 'Cancel' }).waitFor({ state: 'detached', ...WAIT });
      expect((await gw(stack, 'GET', `/jobs/${jobId}`)).body.code).toBe('JOB_CANCELLED');
    } finally {
      await clearFaults(stack);
    }
  });
});

describe('activity', () => {
  it('shows an event published while the page is open, opens it to its JSON, and pauses', async () => {
    const page = await openPage(stack.keys.t1, 'Activity');
    await page.getByRole('status').getByText(/^Live/).waitFor(WAIT);
    const shown = page.getByRole('list', { name: 'Events' }).locator('li');
    // The stream starts from now once connected: publish until it shows one.
    await expect
      .poll(async () => {
        if ((await shown.count()) === 0) await publish('hello from the test');
        return shown.count();
      }, SLOW)
      .toBeGreaterThan(0);
    const first = shown.first();
    expect(await first.textContent()).toContain('messages.received');
    await first.locator('summary').click();
    expect(await first.locator('pre').textContent()).toContain('hello from the test');
    // Paused: nothing new comes in; resumed, what came meanwhile arrives.
    await page.getByRole('button', { name: 'Pause' }).click();
    await page
      .getByRole('status')
      .getByText(/^Paused/)
      .waitFor(WAIT);
    const before = await shown.count();
    await publish('while paused');
    await new Promise((done) => setTimeout(done, 1_000));
    expect(await shown.count()).toBe(before);
    // Resumed, what came meanwhile arrives (the tenant's other events, jobs of earlier tests and a
    // second "hello" of the loop above, may come with it).
    await page.getByRole('button', { name: 'Resume' }).click();
    await expect
      .poll(
        async () =>
          (await shown.locator('pre').allTextContents()).some((json) => json.includes('while paused')),
        SLOW,
      )
      .toBe(true);
    // Leaving the page ends the stream's request.
    const closed = page.waitForEvent('requestfailed', {
      predicate: (request) => request.url().includes('/events/stream'),
      ...WAIT,
    });
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Audit' }).click();
    await closed;
  });

  it('filters by event name', async () => {
    const page = await openPage(stack.keys.t1, 'Activity');
    const form = page.getByRole('form', { name: 'Filter events' });
    await form.getByLabel('Event').fill('posts.created');
    await form.getByRole('button', { name: 'Apply' }).click();
    await publish('filtered out');
    await new Promise((done) => setTimeout(done, 1_000));
    expect(await page.getByRole('list', { name: 'Events' }).locator('li').count()).toBe(0);
  });
});

describe('audit', () => {
  it('lists a write made through the API, newest first, and filters by operation', async () => {
    const made = await gw(stack, 'POST', '/webhooks', { body: { url: `${base}/audited` } });
    expect(made.status).toBe(201);
    const page = await openPage(stack.keys.t1, 'Audit');
    const rows = page.locator('tr[data-audit]');
    await rows.first().waitFor(WAIT);
    expect(await rows.first().getAttribute('data-audit')).toBe('webhooks-create');
    const form = page.getByRole('form', { name: 'Filter the audit log' });
    await form.getByLabel('Operation').fill('connect');
    await form.getByRole('button', { name: 'Apply' }).click();
    await page.locator('tr[data-audit="webhooks-create"]').waitFor({ state: 'detached', ...WAIT });
    await page.locator('tr[data-audit="connect"]').first().waitFor(WAIT);
  });
});

describe('usage', () => {
  it('shows a row for the key after requests, by key and by account', async () => {
    const self = await gw(stack, 'GET', '/keys/self');
    for (let i = 0; i < 3; i++) expect((await gw(stack, 'GET', `/${accountId}/me`)).status).toBe(200);
    const page = await openPage(stack.keys.t1, 'Usage');
    await page.locator(`tr[data-usage="${self.body.data.keyId}"]`).first().waitFor(SLOW);
    await page.getByRole('img', { name: 'Requests per day' }).waitFor(WAIT);
    await page.locator('select[name="groupBy"]').selectOption('account');
    await page.locator(`tr[data-usage="${accountId}"]`).first().waitFor(SLOW);
    await page.locator('select[name="bucket"]').selectOption('hour');
    await page.getByRole('img', { name: 'Requests per hour' }).waitFor(WAIT);
    await page.locator(`tr[data-usage="${accountId}"]`).first().waitFor(SLOW);
  });
});

describe('webhooks', () => {
  it('creates an endpoint, shows its secret once, sends a test and lists its delivery', async () => {
    const page = await openPage(stack.keys.t1, 'Webhooks');
    const form = page.getByRole('form', { name: 'Add an endpoint' });
    await form.getByLabel('URL').fill(`${base}/console-hook`);
    await form.getByRole('button', { name: 'Create endpoint' }).click();
    const secret = page.getByTestId('webhook-secret');
    await secret.waitFor(WAIT);
    const shown = (await secret.textContent()) ?? '';
    expect(shown).toMatch(/^whsec_/);
    const panel = page.locator('[data-webhook]', { hasText: `${base}/console-hook` });
    await panel.waitFor(WAIT);
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByTestId('webhook-secret').count()).toBe(0);
    await page.reload();
    await panel.waitFor(WAIT);
    expect(await page.content()).not.toContain(shown);
    await panel.getByRole('button', { name: 'Send a test' }).click();
    const delivery = panel.locator('tr[data-delivery]').first();
    await delivery.getByText('200').waitFor(SLOW);
    expect(await delivery.getByRole('button', { name: 'Retry' }).count()).toBe(1);
    await panel.getByRole('button', { name: 'Rotate secret' }).click();
    await expect
      .poll(async () => (await page.getByTestId('webhook-secret').textContent()) ?? '', WAIT)
      .toMatch(/^whsec_/);
    expect(await page.getByTestId('webhook-secret').textContent()).not.toBe(shown);
    await panel.getByRole('button', { name: 'Disable' }).click();
    await panel.getByText('disabled').waitFor(WAIT);
    await panel.getByRole('button', { name: 'Enable' }).click();
    await panel.getByText('enabled').waitFor(WAIT);
  });
});

describe('a read key', () => {
  it('sees every page but no write action on any', async () => {
    const key = await readKey();
    expect((await gw(stack, 'POST', '/webhooks', { body: { url: `${base}/seen-by-read` } })).status).toBe(
      201,
    );
    const jobId = await submit(`/${accountId}/me`);
    const page = await openPage(key, 'Webhooks');
    await page.locator('[data-webhook]').first().waitFor(WAIT);
    expect(await page.getByRole('form', { name: 'Add an endpoint' }).count()).toBe(0);
    for (const name of ['Disable', 'Enable', 'Rotate secret', 'Send a test', 'Retry'])
      expect(await page.getByRole('button', { name }).count()).toBe(0);
    await page.goto(`${stack.apiUrl}/console/#/accounts/${accountId}`);
    await page.locator(`li[data-job="${jobId}"]`).waitFor(SLOW);
    expect(await page.getByRole('button', { name: 'Cancel' }).count()).toBe(0);
    for (const link of ['Activity', 'Audit', 'Usage']) {
      await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: link }).click();
      await page.getByRole('heading', { name: link, exact: true }).waitFor(WAIT);
    }
    expect(await page.getByRole('link', { name: 'Keys' }).count()).toBe(0);
  });
});
