/**
 * `pnpm bench [S1 S2 ...] [--quick | --smoke] [--profile]`: runs the benchmark scenarios of issue 5 against
 * the gateway and the baseline proxy on loopback, prints one table row per figure and writes
 * bench/results/<date>.json. Everything it starts, it stops; every run is bounded in time.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { InvalidLoad } from './lib/load';
import { ROOT, stopAll } from './lib/processes';
import { summariseProfiles } from './lib/profile';
import { RedisProbe, startBenchRedis } from './lib/redis';
import { type Row, type ScenarioOutcome, table } from './lib/report';
import type { Scale, Scenario } from './lib/scenario';
import { egress } from './scenarios/egress';
import { s1 } from './scenarios/s1-overhead';
import { s2 } from './scenarios/s2-fanout';
import { s3 } from './scenarios/s3-fairness';
import { s4 } from './scenarios/s4-pacing';
import { s5 } from './scenarios/s5-scale';
import { s6 } from './scenarios/s6-realtime';
import { s7 } from './scenarios/s7-webhooks';
import { s8 } from './scenarios/s8-stream';

const SCENARIOS: Scenario[] = [s1, s2, s3, s4, s5, s6, s7, s8, egress];
/** The whole run must end well within half an hour on 2 cores; past this it stops itself. */
const RUN_LIMIT_MS = 28 * 60_000;

const out = (text: string) => process.stdout.write(text);

let stopRedis: () => Promise<void> = async () => {};
/** Everything this run started, for the paths that end it early (Ctrl-C, time limit, a crash). */
const stopEverything = () => stopAll().finally(() => stopRedis());

function parseArgs(argv: string[]) {
  const flags = new Set(argv.filter((arg) => arg.startsWith('--')));
  for (const flag of flags)
    if (!['--quick', '--smoke', '--profile'].includes(flag))
      throw new Error(`unknown option ${flag} (--quick, --smoke, --profile)`);
  const names = argv.filter((arg) => !arg.startsWith('--')).map((arg) => arg.toUpperCase());
  const unknown = names.filter((name) => !SCENARIOS.some((s) => s.name === name));
  if (unknown.length > 0)
    throw new Error(`unknown scenario ${unknown.join(', ')} (${SCENARIOS.map((s) => s.name).join(', ')})`);
  const selected = names.length === 0 ? SCENARIOS : SCENARIOS.filter((s) => names.includes(s.name));
  const scale: Scale = flags.has('--smoke') ? 'smoke' : flags.has('--quick') ? 'quick' : 'full';
  return { selected, scale, profile: flags.has('--profile') };
}

async function main(): Promise<number> {
  const { selected, scale, profile } = parseArgs(process.argv.slice(2));
  const started = new Date();
  const stamp = started.toISOString().slice(0, 10);
  // BENCH_RESULTS_DIR: somewhere else than bench/results (the smoke test writes to a temp dir).
  const resultsDir = resolve(ROOT, process.env.BENCH_RESULTS_DIR || 'bench/results');
  const profileRoot = profile
    ? join(resultsDir, 'profiles', started.toISOString().replace(/[:.]/g, '-'))
    : undefined;
  const redis = await startBenchRedis();
  stopRedis = redis.stop;
  const probe = new RedisProbe(redis.url, redis.source === 'dedicated');
  const loadAverage = loadavg()
    .map((v) => v.toFixed(2))
    .join(' ');
  const banner = [
    `creator-gateway benchmarks ${started.toISOString()} on ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), load average ${loadAverage}`,
    `Redis ${redis.version} (${redis.source}) at ${redis.url}`,
    ...(scale === 'full' ? [] : [`--${scale}: shortened runs, not for reporting`]),
    ...(profile
      ? [
          `--profile: CPU profiles in ${profileRoot} (profiling slows every process: figures are not for reporting)`,
        ]
      : []),
  ];
  out(`${banner.join('\n')}\n\n`);

  const rows: Row[] = [];
  const notes: string[] = [];
  const scenarios: Record<string, unknown> = {};
  let failed = false;
  for (const scenario of selected) {
    const begin = Date.now();
    const load = loadavg()[0] ?? 0;
    out(`${scenario.name} ${scenario.title}\n`);
    const cpuProfDir = profileRoot ? join(profileRoot, scenario.name) : undefined;
    if (cpuProfDir) mkdirSync(cpuProfDir, { recursive: true });
    try {
      const outcome: ScenarioOutcome = await scenario.run({
        redis,
        probe,
        cpuProfDir,
        scale,
        log: (message) => out(`  ${scenario.name}: ${message}\n`),
      });
      rows.push(...outcome.rows);
      notes.push(...outcome.notes);
      const profiles = cpuProfDir ? summariseProfiles(cpuProfDir) : undefined;
      if (profiles) for (const summary of profiles) out(profileText(summary));
      scenarios[scenario.name] = {
        at: new Date(begin).toISOString(),
        seconds: Math.round((Date.now() - begin) / 1000),
        loadAverageAtStart: load,
        rows: outcome.rows,
        notes: outcome.notes,
        details: outcome.details,
        ...(profiles ? { profiles } : {}),
      };
      out(`  ${scenario.name}: done in ${Math.round((Date.now() - begin) / 1000)} s\n\n`);
    } catch (error) {
      failed = true;
      const invalid = error instanceof InvalidLoad;
      const message = invalid
        ? error.message
        : error instanceof Error
          ? (error.stack ?? error.message)
          : String(error);
      out(`  ${scenario.name}: ${invalid ? 'INVALID' : 'FAILED'}: ${message}\n\n`);
      rows.push({
        scenario: scenario.name,
        metric: scenario.title,
        gateway: invalid ? message : 'failed (see log)',
        baseline: '—',
        ratio: '—',
        target: '—',
        verdict: invalid ? 'invalid' : 'missed',
      });
      scenarios[scenario.name] = { at: new Date(begin).toISOString(), error: message };
      await stopAll();
    }
  }
  probe.close();
  stopRedis = async () => {};
  await redis.stop();

  out(`${table(rows)}\n\n${notes.map((note) => `- ${note}`).join('\n')}\n`);
  const file = join(resultsDir, `${stamp}${profile ? '-profile' : scale === 'full' ? '' : `-${scale}`}.json`);
  mkdirSync(resultsDir, { recursive: true });
  // A run of some scenarios replaces those and keeps the day's other entries.
  const previous = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { scenarios?: object }) : {};
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        date: stamp,
        machine: {
          cores: cpus().length,
          cpu: cpus()[0]?.model,
          memoryGiB: Math.round(totalmem() / 2 ** 30),
          node: process.version,
          redis: `${redis.version} (${redis.source})`,
        },
        scale,
        profile,
        // The figures belong to this code: the commit, and whether the gateway's sources had changes.
        code: codeVersion(),
        scenarios: { ...previous.scenarios, ...scenarios },
      },
      null,
      2,
    )}\n`,
  );
  out(`\nresults: ${file}\n`);
  return failed ? 1 : 0;
}

function codeVersion(): { commit: string; uncommittedGatewayFiles: number } | undefined {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
    const changed = git('status', '--porcelain', '--', 'apps', 'packages');
    return {
      commit: git('rev-parse', 'HEAD'),
      uncommittedGatewayFiles: changed ? changed.split('\n').length : 0,
    };
  } catch {
    return undefined;
  }
}

function profileText(summary: ReturnType<typeof summariseProfiles>[number]): string {
  return [
    `  profile ${summary.file} (busy ${summary.busyMs} ms)`,
    `    by area: ${summary.areas.map((a) => `${a.area} ${a.percent}%`).join(', ')}`,
    ...summary.functions.slice(0, 10).map((f) => `    ${f.percent}% ${f.name}`),
    '',
  ].join('\n');
}

const limit = setTimeout(() => {
  out(`\nbench: stopped after ${RUN_LIMIT_MS / 60_000} minutes\n`);
  void stopEverything().finally(() => process.exit(2));
}, RUN_LIMIT_MS);
limit.unref();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    out(`\nbench: ${signal}, stopping\n`);
    void stopEverything().finally(() => process.exit(130));
  });
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    out(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
    void stopEverything().finally(() => process.exit(1));
  },
);
