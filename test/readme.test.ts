import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type TestStack } from './support/stack';

// The README's curl walkthrough must work as pasted: this runs its block, with only the first line
// (where the stack lives and the API key) pointed at this test's stack.
const run = promisify(execFile);
const readme = readFileSync(resolve(import.meta.dirname, '../README.md'), 'utf8');
const block = /## Walkthrough with curl[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
let stack: TestStack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.stop();
});

describe('README walkthrough', () => {
  it('starts by pointing at the stack that `pnpm start` prints', () => {
    expect(block.split('\n')[0]).toBe(
      'export API=http://127.0.0.1:3000/api/fansly KEY=$(cat .local/api-key) SIM=http://127.0.0.1:4010',
    );
  });

  it('runs as pasted and shows what its comments promise', async () => {
    const lines = block.split('\n');
    lines[0] = `export API=${stack.apiUrl}/api/fansly KEY=${stack.keys.t1} SIM=${stack.simUrl}`;
    const { stdout } = await run('bash', ['-e', '-o', 'pipefail', '-c', lines.join('\n')], {
      timeout: 60_000,
    });
    const out = stdout.trim().split('\n');
    expect(out[0]).toMatch(/^connected acct_/);
    expect(out).toContain('creator_demo');
    expect(out).toContain('The ids query parameter is required');
    expect(out).toContain('INVALID_2FA_CODE');
    expect(out.filter((line) => /^acct_/.test(line))).toHaveLength(1);
    expect(out).toContain('201');
    expect(out).toContain('200');
    expect(out.filter((line) => /^one link: \d+$/.test(line))).toHaveLength(1);
    expect(out.filter((line) => /^replied \d+$/.test(line))).toHaveLength(1);
    expect(out.filter((line) => /^ppv offer \d+$/.test(line))).toHaveLength(1);
    expect(out).toContain('UNAUTHORIZED');
    expect(out).toContain('FORBIDDEN');
    expect(out).toContain('NOT_FOUND');
    expect(out).toContain('connected');
    expect(out).toContain('event: accounts.connected');
    expect(out.at(-1)).toBe('true');
  });
});
