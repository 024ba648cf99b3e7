import { ApiKeyStore, storeKeys } from '@cg/store';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectAccount } from '../support/common';
import { openConsole as openTab, signIn, startConsoleStack, WAIT } from '../support/console-browser';
import { account, gw, type TestStack } from '../support/stack';

// The web console (apps/console) in a real browser (the system's chromium), served by the API under
// /console/ with its CSP, against a whole stack: what each key's scope shows, where the key is kept,
// and that no page load trips the CSP.

let stack: TestStack;
let browser: Browser;
let context: BrowserContext;
let accountId: string;
/** What the browser said about the page: CSP violations, page errors. */
let complaints: string[];

beforeAll(async () => {
  ({ stack, browser } = await startConsoleStack());
  accountId = await connectAccount(stack, 'creator_demo');
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});
afterEach(async () => {
  await context?.close();
});

/** A fresh browser profile (no storage) on the console's sign-in page. */
async function openConsole(): Promise<Page> {
  const tab = await openTab(browser, stack);
  ({ context, complaints } = tab);
  return tab.page;
}

/** What the page keeps: sessionStorage's and localStorage's values, and its cookies. */
const storage = (page: Page) =>
  page.evaluate<{ session: string[]; local: string[]; cookie: string }>(
    '({ session: Object.values(sessionStorage), local: Object.values(localStorage), cookie: document.cookie })',
  );

describe('serving', () => {
  it('serves the console with a strict CSP, nosniff and cache headers', async () => {
    const index = await fetch(`${stack.apiUrl}/console/`);
    expect(index.status).toBe(200);
    const csp = index.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(index.headers.get('x-content-type-options')).toBe('nosniff');
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const html = await index.text();
    const asset = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(asset).toBeDefined();
    const script = await fetch(`${stack.apiUrl}${asset}`);
    expect(script.status).toBe(200);
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(script.headers.get('content-security-policy')).toBe(csp);
    // No key is needed for the files; /console itself leads to /console/.
    const bare = await fetch(`${stack.apiUrl}/console`, { redirect: 'manual' });
    expect([301, 302]).toContain(bare.status);
    expect(bare.headers.get('location')).toBe('/console/');
  });
});

describe('in the browser', () => {
  it('signs in with an admin key and shows the connected account, its health and every action', async () => {
    const page = await openConsole();
    await signIn(page, stack.keys.t1);
    const row = page.locator(`tr[data-account="${accountId}"]`);
    await row.waitFor(WAIT);
    expect(await row.textContent()).toContain('creator_demo');
    expect(await row.locator('.state').textContent()).toBe('connected');
    await row.getByText(/^backlog \d+$/).waitFor(WAIT);
    expect(await row.getByText('realtime', { exact: false }).count()).toBe(1);
    expect(await row.getByRole('button', { name: 'Disconnect' }).count()).toBe(1);
    expect(await page.getByRole('form', { name: 'Connect an account' }).count()).toBe(1);
    expect(await page.getByRole('link', { name: 'Keys' }).count()).toBe(1);
    const kept = await storage(page);
    expect(kept.session).toEqual([stack.keys.t1]);
    expect(kept.local.join()).not.toContain(stack.keys.t1);
    expect(kept.cookie).not.toContain(stack.keys.t1);
    // A reload of the tab keeps the session.
    await page.reload();
    await page.getByRole('heading', { name: 'Accounts' }).waitFor(WAIT);
    expect(complaints).toEqual([]);
  });

  it('is under a CSP the browser enforces: an inline script is refused, and reported as above', async () => {
    const page = await openConsole();
    await page.getByLabel('API key').waitFor(WAIT);
    await page.evaluate(
      "const s = document.createElement('script'); s.textContent = 'window.ran = true'; document.head.append(s)",
    );
    expect(await page.evaluate('window.ran === true')).toBe(false);
    await expect.poll(() => complaints.join('\n'), WAIT).toMatch(/Content Security Policy/);
  });

  it('says so when a key is not accepted, and keeps nothing', async () => {
    const page = await openConsole();
    await page.getByLabel('API key').fill('cgk_not-a-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor(WAIT);
    expect(await alert.textContent()).toMatch(/not accepted.*UNAUTHORIZED/);
    expect((await storage(page)).session).toEqual([]);
  });

  it('shows a read key no write action and no Keys page', async () => {
    const { key } = await new ApiKeyStore(stack.redis, storeKeys(stack.prefix)).create('t1', {
      access: 'read',
      accounts: [accountId],
    });
    const page = await openConsole();
    await signIn(page, key);
    const row = page.locator(`tr[data-account="${accountId}"]`);
    await row.getByText(/^backlog \d+$/).waitFor(WAIT);
    expect(await page.getByRole('button', { name: 'Disconnect' }).count()).toBe(0);
    expect(await page.getByRole('form', { name: 'Connect an account' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Keys' }).count()).toBe(0);
    // Not even by its address.
    await page.goto(`${stack.apiUrl}/console/#/keys`);
    await page.getByRole('heading', { name: 'Accounts' }).waitFor(WAIT);
    expect(await page.getByRole('heading', { name: 'Keys' }).count()).toBe(0);
    expect(complaints).toEqual([]);
  });

  it('connects an account that asks for a verification code, and disconnects it after a confirmation', async () => {
    const page = await openConsole();
    await signIn(page, stack.keys.t1);
    const form = page.getByRole('form', { name: 'Connect an account' });
    const fixture = account(stack, 'creator_2fa');
    await form.getByLabel('Username').fill(fixture.username);
    await form.getByLabel('Password').fill(fixture.password);
    await form.getByLabel('Display name').fill('Two Factor');
    await form.getByRole('button', { name: 'Connect' }).click();
    await form.getByLabel(/Verification code/).fill(String(fixture.twofaCode));
    await form.getByRole('button', { name: 'Verify' }).click();
    await form
      .getByRole('status')
      .getByText(/^Connected Two Factor/)
      .waitFor(WAIT);
    await page
      .locator('tr', { hasText: 'creator_2fa' })
      .locator('.state')
      .getByText('connected')
      .waitFor(WAIT);
  });

  it('creates a key on the Keys page, shows it once, and revokes it', async () => {
    const page = await openConsole();
    await signIn(page, stack.keys.t1);
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.getByRole('heading', { name: 'Keys' }).waitFor(WAIT);
    const form = page.getByRole('form', { name: 'Create a key' });
    await form.getByLabel('Label').fill('console-made');
    await form.getByLabel('Access').selectOption('read');
    await form.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByTestId('new-key');
    await shown.waitFor(WAIT);
    const key = (await shown.textContent()) ?? '';
    expect(key).toMatch(/^cgk_/);
    await page.locator('tr', { hasText: 'console-made' }).waitFor(WAIT);
    const self = await gw(stack, 'GET', '/keys/self', { key });
    expect(self.status).toBe(200);
    expect(self.body.data).toMatchObject({ label: 'console-made', access: 'read', accounts: null });
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await form.getByRole('button', { name: 'Copy' }).click();
    await form.getByRole('button', { name: 'Copied' }).waitFor(WAIT);
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(key);
    // Once: gone after Done, and after the page is loaded again.
    await form.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByTestId('new-key').count()).toBe(0);
    await page.reload();
    await page.getByRole('heading', { name: 'Keys' }).waitFor(WAIT);
    const row = page.locator('tr', { hasText: 'console-made' });
    await row.waitFor(WAIT);
    expect(await page.content()).not.toContain(key);
    // Revoked after a confirmation: gone from the list and from the gateway.
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Yes, revoke' }).click();
    await row.waitFor({ state: 'detached', ...WAIT });
    const listed = await gw(stack, 'GET', '/keys', { key: stack.keys.t1 });
    expect(listed.body.data.keys.map((k: { label: string }) => k.label)).not.toContain('console-made');
    // The key the console signed in with offers no revoke of itself.
    const own = page.locator('tr', { hasText: 'this key' });
    expect(await own.count()).toBe(1);
    expect(complaints).toEqual([]);
  });

  it('forgets the key on sign-out', async () => {
    const page = await openConsole();
    await signIn(page, stack.keys.t1);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor(WAIT);
    const kept = await storage(page);
    expect(kept).toEqual({ session: [], local: [], cookie: '' });
    await page.reload();
    await page.getByLabel('API key').waitFor(WAIT);
    expect(complaints).toEqual([]);
  });
});
