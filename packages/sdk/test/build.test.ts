import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../src/operations';

// What `pnpm --filter @cg/sdk build` publishes must run in a plain Node project: no TypeScript, no
// loader, ESM resolution as Node does it (every relative import with its `.js`).
const run = promisify(execFile);
const PACKAGE = resolve(import.meta.dirname, '..');
const folder = mkdtempSync(join(tmpdir(), 'sdk-build-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('the built package', () => {
  it('imports in plain Node and works: the operations, a webhook check', { timeout: 180_000 }, async () => {
    const out = join(folder, 'dist');
    await run(
      process.execPath,
      [
        resolve(PACKAGE, '../../node_modules/typescript/bin/tsc'),
        '-p',
        'tsconfig.build.json',
        '--outDir',
        out,
      ],
      { cwd: PACKAGE, timeout: 170_000 },
    );
    const secret = `whsec_${Buffer.from('a secret of twenty-four b').toString('base64')}`;
    const body = JSON.stringify({
      id: 'evt_1',
      event: 'tips.received',
      accountId: null,
      timestamp: '',
      data: {},
    });
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
      .update(`evt_1.${timestamp}.${body}`)
      .digest('base64');
    const script = join(folder, 'use.mjs');
    writeFileSync(
      script,
      `import { createClient, OPERATIONS, verifyWebhook } from ${JSON.stringify(join(out, 'index.js'))};
const client = createClient({ baseUrl: 'http://127.0.0.1:9/api/fansly', apiKey: 'k' });
const event = await verifyWebhook({
  body: ${JSON.stringify(body)},
  headers: { 'webhook-id': 'evt_1', 'webhook-timestamp': '${timestamp}', 'webhook-signature': 'v1,${signature}' },
  secret: ${JSON.stringify(secret)},
});
process.stdout.write(JSON.stringify({ operations: Object.keys(OPERATIONS).length, method: typeof client.subscribers, event: event.event }));
`,
    );
    const { stdout } = await run(process.execPath, [script], { cwd: folder, timeout: 30_000 });
    expect(JSON.parse(stdout)).toEqual({
      operations: Object.keys(OPERATIONS).length,
      method: 'function',
      event: 'tips.received',
    });
  });
});
