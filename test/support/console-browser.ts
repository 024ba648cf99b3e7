import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { ensureConsoleBuilt } from '../../scripts/lib/console-build';
import { startStack, type TestStack } from './stack';

// The web console's browser tests' shared setup: a built console, a stack serving it, the system's
// chromium (no browser download), and a fresh profile per test that records what the browser said.

const CHROMIUM = '/usr/bin/chromium';
export const WAIT = { timeout: 10_000 };

/** Builds the console when stale, then starts the stack and the browser side by side. */
export async function startConsoleStack(
  options: Parameters<typeof startStack>[0] = {},
): Promise<{ stack: TestStack; browser: Browser }> {
  await ensureConsoleBuilt(90_000);
  const [stack, browser] = await Promise.all([
    startStack(options),
    chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] }),
  ]);
  return { stack, browser };
}

export interface ConsoleTab {
  context: BrowserContext;
  page: Page;
  /** What the browser said about the page: CSP violations, page errors, failed non-API loads. */
  complaints: string[];
}

/** A fresh browser profile (no storage) on the console's sign-in page. */
export async function openConsole(browser: Browser, stack: TestStack): Promise<ConsoleTab> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const complaints: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || /Content Security Policy/i.test(message.text()))
      complaints.push(message.text());
  });
  page.on('pageerror', (error) => complaints.push(error.message));
  page.on('response', (response) => {
    if (response.status() >= 400 && !response.url().includes('/api/'))
      complaints.push(`${response.status()} ${response.url()}`);
  });
  await page.goto(`${stack.apiUrl}/console/`);
  return { context, page, complaints };
}

export async function signIn(page: Page, key: string): Promise<void> {
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Accounts' }).waitFor(WAIT);
}
