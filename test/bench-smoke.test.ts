import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';

// `pnpm bench --smoke`: every scenario at a tiny scale, so that a change that breaks one (it no
// longer starts, or its answers are not the statuses it expects) fails here the day it lands. Its
// figures are not judged: a missed target is fine, an invalid row, a failed scenario or a missing
// figure is not. The results file goes to a temp dir, the harness's output is shown only on failure.
const root = resolve(import.meta.dirname, '..');
const SCENARIOS = ['S1', 'S2', 'S3', 'S4', 'S5', 'S6', 'S7', 'S8', 'EGRESS'];
const dir = mkdtempSync(join(tmpdir(), 'cg-bench-smoke-'));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Results {
  scale: string;
  scenarios: Record<
    string,
    { error?: string; rows?: Array<{ scenario: string; verdict: string; gateway: string }> }
  >;
}

function smoke(): Promise<{ code: number | null; output: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--smoke'], {
      cwd: root,
      env: { ...process.env, BENCH_RESULTS_DIR: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    child.once('error', fail);
    child.once('exit', (code) => done({ code, output }));
  });
}

it('the bench smoke run: every scenario runs and produces its rows, none invalid', {
  timeout: 300_000,
}, async () => {
  const { code, output } = await smoke();
  const shown = `bench --smoke output:\n${output}`;
  expect(code, shown).toBe(0);
  const files = readdirSync(dir).filter((name) => name.endsWith('-smoke.json'));
  expect(files, shown).toHaveLength(1);
  const results = JSON.parse(readFileSync(join(dir, files[0] ?? ''), 'utf8')) as Results;
  expect(results.scale).toBe('smoke');
  expect(Object.keys(results.scenarios).sort(), shown).toEqual([...SCENARIOS].sort());
  for (const name of SCENARIOS) {
    const scenario = results.scenarios[name];
    expect(scenario?.error, `${name}: ${scenario?.error}\n${shown}`).toBeUndefined();
    const rows = scenario?.rows ?? [];
    expect(rows.length, `${name} produced no rows\n${shown}`).toBeGreaterThan(0);
    const invalid = rows.filter((row) => row.verdict === 'invalid');
    expect(invalid, `${name}: invalid rows\n${shown}`).toEqual([]);
    // Every figure is given (a row without one reads '—' or 'failed'); n/a rows say why instead.
    for (const row of rows.filter((r) => r.verdict !== 'n/a'))
      expect(row.gateway, `${name}: a row without its figure\n${shown}`).not.toMatch(/^(—|failed)/);
  }
});
