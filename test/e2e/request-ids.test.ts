import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectCredentials } from '../support/common';
import { eventually, spawnApi, spawnApp } from '../support/processes';
import { finished, gw, startStack, type TestStack } from '../support/stack';

// One request id from the API through the job to the platform call and back (issue 26, item 7): the
// API, a worker and the webhook delivery run as processes of their own at LOG_LEVEL=debug, as an
// operator would run them, and their log lines are read as written.

type Line = Record<string, unknown> & { msg?: string; requestId?: string };

/** Everything one process wrote, and its JSON lines. */
class Output {
  text = '';
  readonly write = (chunk: string) => {
    this.text += chunk;
  };
  lines(): Line[] {
    return this.text
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Line);
  }
  /** The lines of request `id`. */
  of(id: string): Line[] {
    return this.lines().filter((line) => line.requestId === id);
  }
}

const outputs = { api: new Output(), worker: new Output(), webhooks: new Output() };
const processes: ReturnType<typeof spawnApp>[] = [];
let stack: TestStack;
/** The stack with the API process's address (`gw` talks to it). */
let viaProcess: TestStack;
/** Unique per run: the shared Redis may hold another run's jobs. */
const run = Math.random().toString(36).slice(2, 8);
const idOf = (name: string) => `${name}-${run}`;
/** creator_demo's service account, once a test connected it. */
let accountId: string | undefined;
/** A webhook receiver that answers every delivery 500. */
let failingReceiver: string;
let receiver: Server;

/** creator_demo connected (by the connection test, or here when it ran alone). */
async function demoAccount(): Promise<string> {
  accountId ??= (
    await gw(viaProcess, 'POST', '/connect', { body: connectCredentials(stack, 'creator_demo') })
  ).body.data.account_id as string;
  return accountId;
}

beforeAll(async () => {
  receiver = createServer((_request, response) => response.writeHead(500).end());
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
  failingReceiver = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  stack = await startStack({ worker: false, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  processes.push(spawnApp('worker', stack.env, outputs.worker.write));
  processes.push(spawnApp('webhooks', stack.env, outputs.webhooks.write));
  const api = await spawnApi(stack.env, outputs.api.write);
  processes.push(api);
  viaProcess = { ...stack, apiUrl: api.url };
}, 60_000);

afterAll(async () => {
  for (const { child, exited } of processes) {
    child.kill('SIGKILL');
    await exited;
  }
  await stack?.stop();
  receiver?.close();
});

describe('X-Request-Id', () => {
  it("is the caller's when well-formed, on the answer and as the error body's requestId", async () => {
    const id = idOf('caller.id:1');
    const answer = await gw(viaProcess, 'GET', '/accounts', { key: null, headers: { 'x-request-id': id } });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('x-request-id')).toBe(id);
    expect(answer.body.requestId).toBe(id);
  });

  it('is replaced by one of ours when malformed, and still names the error body', async () => {
    for (const given of ['has space', 'x'.repeat(65), 'a<b>', 'one, two']) {
      const answer = await gw(viaProcess, 'GET', '/accounts', {
        key: null,
        headers: { 'x-request-id': given },
      });
      const echoed = answer.headers.get('x-request-id');
      expect(echoed).toMatch(/^req_[a-z0-9]+$/);
      expect(answer.body.requestId).toBe(echoed);
    }
  });

  it('is on every answer: a success, a 404 outside the prefix, a 405, a refused path, the docs', async () => {
    const cases: [string, string, number][] = [
      ['GET', `${viaProcess.apiUrl}/api/fansly/accounts`, 200],
      ['GET', `${viaProcess.apiUrl}/no-such-route`, 404],
      ['DELETE', `${viaProcess.apiUrl}/healthz`, 405],
      // The router refuses a path parameter longer than it takes before any hook runs.
      ['GET', `${viaProcess.apiUrl}/api/fansly/${'a'.repeat(101)}/me`, 400],
      ['GET', `${viaProcess.apiUrl}/openapi.json`, 200],
    ];
    for (const [method, url, status] of cases) {
      const response = await fetch(url, { method, headers: { 'x-api-key': stack.keys.t1 } });
      expect(response.status, `${method} ${url}`).toBe(status);
      expect(response.headers.get('x-request-id'), `${method} ${url}`).toMatch(/^req_[a-z0-9]+$/);
      const body = await response.text();
      if (status >= 400) expect(JSON.parse(body).requestId).toBe(response.headers.get('x-request-id'));
    }
  });

  it("is on the answer to a request Node's parser refuses, as in its body", async () => {
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(viaProcess.apiUrl).port), '127.0.0.1', () =>
        socket.write('GET / HTTP/1.1\r\nHost: a\r\nBad\u0001: b\r\n\r\n'),
      );
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString();
      });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    const header = /\r\nX-Request-Id: (req_[a-z0-9]+)\r\n/.exec(raw)?.[1];
    expect(header).toBeDefined();
    expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)).requestId).toBe(header);
  });
});

describe('one request id in every process', () => {
  it('a connection: the API, the job, its platform calls; never the password', async () => {
    const id = idOf('connect');
    const credentials = connectCredentials(stack, 'creator_demo');
    const answer = await gw(viaProcess, 'POST', '/connect', {
      body: credentials,
      headers: { 'x-request-id': id },
    });
    expect(answer.status).toBe(201);
    expect(answer.headers.get('x-request-id')).toBe(id);
    accountId = answer.body.data.account_id as string;

    // The API's lines: the request's, and the one that ties it to its job ("request completed" is
    // written once the answer is out, so it may come after the answer).
    const apiLines = await eventually(async () => {
      const lines = outputs.api.of(id);
      return lines.some((line) => line.msg === 'request completed') ? lines : undefined;
    });
    expect(apiLines.map((line) => line.msg)).toEqual(
      expect.arrayContaining(['incoming request', 'job submitted', 'request completed']),
    );
    const jobId = apiLines.find((line) => line.msg === 'job submitted')?.jobId;
    expect(jobId).toMatch(/^job_/);

    const workerLines = await eventually(async () => {
      const lines = outputs.worker.of(id);
      return lines.some((line) => line.msg === 'job done') ? lines : undefined;
    });
    expect(workerLines.every((line) => line.jobId === jobId && line.op === 'connect')).toBe(true);
    expect(workerLines.map((line) => line.msg)).toEqual(
      expect.arrayContaining(['job started', 'platform call', 'job done']),
    );
    const calls = workerLines.filter((line) => line.msg === 'platform call');
    expect(calls.map((line) => line.endpoint)).toEqual(expect.arrayContaining(['deviceId', 'login']));
    for (const call of calls) {
      expect(call.outcome).toBe('ok');
      expect(typeof call.ms).toBe('number');
    }

    for (const [name, output] of Object.entries(outputs))
      expect(output.text, `${name} logged the password`).not.toContain(credentials.password);
  });

  it('a failed job: its failure line names the request; the wrong password is not logged', async () => {
    const id = idOf('refused');
    const wrong = `wrong-${run}-password`;
    const answer = await gw(viaProcess, 'POST', '/connect', {
      body: { ...connectCredentials(stack, 'creator_demo'), password: wrong },
      headers: { 'x-request-id': id },
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'INVALID_CREDENTIALS', requestId: id });
    const failed = await eventually(async () =>
      outputs.worker.of(id).find((line) => line.msg === 'job failed'),
    );
    expect(failed.reason).toContain('INVALID_CREDENTIALS');
    const login = outputs.worker
      .of(id)
      .find((line) => line.msg === 'platform call' && line.endpoint === 'login');
    expect(login).toMatchObject({ outcome: 'invalid_credentials' });
    for (const [name, output] of Object.entries(outputs))
      expect(output.text, `${name} logged the password`).not.toContain(wrong);
  });

  it('reads run as one batch: each request has its own id on its own platform call', async () => {
    const account = await demoAccount();
    const ids = [1, 2, 3, 4, 5, 6].map((n) => idOf(`read-${n}`));
    const answers = await Promise.all(
      ids.map((id) => gw(viaProcess, 'GET', `/${account}/me`, { headers: { 'x-request-id': id } })),
    );
    for (const [n, answer] of answers.entries()) {
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-request-id')).toBe(ids[n]);
    }
    const jobIds: string[] = [];
    for (const id of ids) {
      const call = await eventually(async () =>
        outputs.worker.of(id).find((line) => line.msg === 'platform call' && line.endpoint === 'accountMe'),
      );
      const submitted = await eventually(async () =>
        outputs.api.of(id).find((line) => line.msg === 'job submitted'),
      );
      expect(call.jobId).toBe(submitted.jobId);
      jobIds.push(call.jobId as string);
    }
    // Requests of a batch are `<batch>-<n>`: some of these travelled together, each under its own id.
    const batches = new Set(jobIds.map((jobId) => jobId.replace(/-\d+$/, '')));
    expect(batches.size).toBeLessThan(ids.length);
  });

  it("a request answered 202: its job's callback is told under the same id", async () => {
    const id = idOf('async');
    const answer = await gw(viaProcess, 'GET', `/${await demoAccount()}/me`, {
      headers: { 'x-request-id': id, prefer: 'respond-async' },
    });
    expect(answer.status).toBe(202);
    expect(answer.headers.get('x-request-id')).toBe(id);
    const { jobId } = answer.body.data as { jobId: string };
    expect((await finished(answer.body.data.statusUrl, stack.keys.t1)).status).toBe(200);
    const told = await eventually(async () =>
      outputs.webhooks.of(id).find((line) => line.msg === 'job callback told'),
    );
    expect(told).toMatchObject({ jobId, state: 'completed' });
  });

  it('a webhook delivery of what a request caused: each failed attempt names the request', async () => {
    const endpoint = await gw(viaProcess, 'POST', '/webhooks', {
      body: { url: `${failingReceiver}/hook`, events: ['jobs.completed'] },
    });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    const endpointId = endpoint.body.data.id as string;

    // A request answered 202: the delivery of its `jobs.completed`.
    const id = idOf('delivered');
    const answer = await gw(viaProcess, 'GET', `/${await demoAccount()}/me`, {
      headers: { 'x-request-id': id, prefer: 'respond-async' },
    });
    expect(answer.status).toBe(202);
    const failed = await eventually(async () =>
      outputs.webhooks.of(id).find((line) => line.msg === 'delivery attempt failed'),
    );
    expect(failed).toMatchObject({ attempt: 1, reason: expect.stringContaining('500') });

    // A test event (sent whatever the endpoint's filter): the request that sent it.
    const testId = idOf('test-event');
    const sent = await gw(viaProcess, 'POST', `/webhooks/${endpointId}/test`, {
      headers: { 'x-request-id': testId },
    });
    expect(sent.status).toBe(200);
    await eventually(async () =>
      outputs.webhooks.of(testId).find((line) => line.msg === 'delivery attempt failed'),
    );
  });
});

describe('LOG_PRETTY=true', () => {
  it('makes the API and the other processes write text for people instead of JSON', async () => {
    const started = (['api', 'webhooks'] as const).map((name) => {
      const output = new Output();
      const env = { ...stack.env, LOG_PRETTY: 'true', PORT: '0', HOST: '127.0.0.1' };
      return { name, output, process: spawnApp(name, env, output.write) };
    });
    processes.push(...started.map((one) => one.process));
    const firstLine = {
      api: /\] INFO \(api\): Server listening at http/,
      webhooks: /\] INFO \(webhooks\): webhooks started\n/,
    };
    for (const { name, output } of started) {
      await eventually(
        async () => (firstLine[name].test(output.text) ? true : undefined),
        30_000,
        `${name} up`,
      );
      expect(output.lines(), `${name} wrote JSON`).toEqual([]);
    }
  });
});
