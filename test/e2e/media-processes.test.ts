import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAccount } from '../support/common';
import { eventually, sleep, spawnApi, spawnWorker } from '../support/processes';
import { simConfig, simJson } from '../support/sim';
import { startStack, type TestStack } from '../support/stack';

// Media uploads on processes of their own: the API's memory during a large upload, and a
// worker SIGKILLed while an upload is at the platform.

const MB = 1024 * 1024;

let stack: TestStack;
let accountId: string;
let apiUrl = '';
let api: Awaited<ReturnType<typeof spawnApi>> | undefined;
/** Workers run as processes of their own: the test's own work (random files) would stall their locks. */
const workers: ReturnType<typeof spawnWorker>[] = [];
/** A lapsed lock is taken over this soon in the crash drill. */
const drillEnv = { WORKER_LOCK_MS: '2000' };

beforeAll(async () => {
  stack = await startStack({ worker: false, env: { MEDIA_SPOOL_SWEEP_MS: '500' } });
  api = await spawnApi(stack.env);
  apiUrl = api.url;
  workers.push(spawnWorker(stack.env));
  accountId = await connectAccount(stack, 'creator_demo');
});
afterAll(async () => {
  api?.child.kill('SIGKILL');
  for (const worker of workers) worker.child.kill('SIGKILL');
  await stack?.stop();
});

async function upload(bytes: Buffer, type: string, name: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type }), name);
  const response = await fetch(`${apiUrl}/api/fansly/${accountId}/media/upload`, {
    method: 'POST',
    headers: { 'x-api-key': stack.keys.t1 },
    body: form,
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { data: { jobId: string } }).data.jobId;
}

async function finalJob(jobId: string, timeoutMs = 60_000) {
  return eventually(
    async () => {
      const response = await fetch(`${apiUrl}/api/fansly/media/upload/${jobId}/status`, {
        headers: { 'x-api-key': stack.keys.t1 },
      });
      const { data } = (await response.json()) as { data: { state: string; error: string | null } };
      return data.state === 'completed' || data.state === 'failed' ? data : undefined;
    },
    timeoutMs,
    'upload job ended',
  );
}

const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** The API process's peak RSS while `work` runs, sampled every 20 ms. */
async function peakRss(work: () => Promise<unknown>): Promise<number> {
  const pid = api?.child.pid ?? 0;
  let peak = rssMb(pid);
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(pid));
  }, 20);
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  return Math.max(peak, rssMb(pid));
}

const spoolFiles = () =>
  existsSync(stack.env.MEDIA_SPOOL_DIR ?? '') ? readdirSync(stack.env.MEDIA_SPOOL_DIR ?? '') : [];

describe('media uploads on processes of their own', () => {
  it("keeps the API process's memory flat whatever the file's size", async () => {
    const baseline = rssMb(api?.child.pid ?? 0);
    const peaks: number[] = [];
    for (const size of [5, 60, 120]) {
      const bytes = randomBytes(size * MB);
      let jobId = '';
      peaks.push(await peakRss(async () => (jobId = await upload(bytes, 'video/mp4', `${size}.mp4`))));
      expect((await finalJob(jobId)).state).toBe('completed');
    }
    const [, large = 0, larger = 0] = peaks.map((peak) => peak - baseline);
    const growth = `API RSS ${baseline.toFixed(1)} MB before; peak growth ${peaks.map((peak) => (peak - baseline).toFixed(1)).join(', ')} MB during 5, 60, 120 MB`;
    // A file held whole would add its size; a streamed one adds buffers, garbage until the next GC.
    expect(large, growth).toBeLessThan(60);
    expect(larger, growth).toBeLessThan(large + 16);
  });

  it('ends an upload whose worker was SIGKILLed as failed, with one platform upload and no spool file', async () => {
    // The platform holds the upload "processing" long enough to kill the worker in the middle.
    await simConfig(stack, { uploadProcessingMs: 4_000 });
    for (const running of workers.splice(0)) {
      running.child.kill('SIGKILL');
      await running.exited;
    }
    const uploadsBefore = (await simJson(stack, '/_sim/uploads?account=creator_demo')).uploads.length;
    const worker = spawnWorker({ ...stack.env, ...drillEnv });
    try {
      const jobId = await upload(randomBytes(3 * MB), 'image/png', 'crash.png');
      await eventually(
        async () => {
          const { uploads } = await simJson(stack, '/_sim/uploads?account=creator_demo');
          return uploads.length > uploadsBefore && uploads.at(-1).status === 5 ? true : undefined;
        },
        20_000,
        'upload processing at the platform',
      );
      worker.child.kill('SIGKILL');
      await worker.exited;
      workers.push(spawnWorker({ ...stack.env, ...drillEnv }));
      const job = await finalJob(jobId);
      expect(job.state).toBe('failed');
      expect(job.error).toMatch(/was sent and did not finish/);
      await sleep(4_500);
      const { uploads } = await simJson(stack, '/_sim/uploads?account=creator_demo');
      // One upload at the platform for the job, which made one media at most.
      expect(uploads.length).toBe(uploadsBefore + 1);
      await eventually(async () => (spoolFiles().length === 0 ? true : undefined), 5_000, 'spool empty');
    } finally {
      worker.child.kill('SIGKILL');
      await simConfig(stack, { uploadProcessingMs: 200 });
    }
    // Two worker starts, a lock's lapse and the platform's processing: longer than the default.
  }, 60_000);
});
