import { fork } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { loadGatewayConfig, webhookSettings } from '@cg/config';
import { createEvents, type Events, eventId } from '@cg/events';
import { parseKeyring } from '@cg/secrets';
import { connectRedis } from '@cg/store';
import { CpuMeter, cpuLine, processCpuMs } from '../lib/cpu';
import { InvalidLoad } from '../lib/load';
import { baseEnv, ROOT, sleep, stopChild, track } from '../lib/processes';
import { ms, num, percentile, type Row, verdict } from '../lib/report';
import { type Scenario, sizer } from '../lib/scenario';
import { Scope } from '../lib/scope';
import { registerWebhook, SLUG, sandboxWsUrl, startGateway, startSandbox } from '../lib/stack';
import type { SseResult, SseSpec } from '../load/sse';

/** The bootstrap key's tenant (`GATEWAY_BOOTSTRAP_TENANT`): its log is streamed and its endpoint fed. */
const TENANT = 'default';
/** What the measured events are: one name, so the webhook endpoint and the streams see the same. */
const EVENT = 'messages.received';

/** The webhook receiver: each measured delivery's publish-to-arrival time. */
class Receiver {
  readonly latencies: number[] = [];
  deliveries = 0;
  private readonly server: Server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      const at = performance.timeOrigin + performance.now();
      this.deliveries += 1;
      const data = (JSON.parse(body) as { data?: { t?: number; m?: number } }).data;
      if (data?.m === 1 && typeof data.t === 'number') this.latencies.push(at - data.t);
      response.writeHead(204).end();
    });
  });

  async listen(): Promise<string> {
    await new Promise<void>((done) => this.server.listen(0, '127.0.0.1', done));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((done) => this.server.close(() => done()));
  }
}

/** The stream clients' process (bench/load/sse.ts), once every stream is open; `stop` ends it. */
async function openClients(spec: SseSpec) {
  const child = fork(resolve(ROOT, 'bench/load/sse.ts'), [], {
    cwd: ROOT,
    execArgv: ['--import', 'tsx'],
    env: baseEnv(),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  track(child);
  const next = <T>(what: string, key: 'opened' | 'result') =>
    new Promise<T>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`stream clients: no ${what} within 60 s`)), 60_000);
      child.once('message', (message: Record<string, unknown>) => {
        clearTimeout(timer);
        done(message[key] as T);
      });
      child.once('exit', (code) => fail(new Error(`stream clients exited (${code})`)));
    });
  const opened = next<boolean>('open streams', 'opened');
  child.send(spec);
  await opened;
  return {
    pid: child.pid,
    stop: async (): Promise<SseResult> => {
      const result = next<SseResult>('result', 'result');
      child.send({ stop: true });
      const answer = await result;
      await stopChild(child, 2_000);
      return answer;
    },
    kill: () => stopChild(child, 1_000),
  };
}

/**
 * Publishes `perSecond` events for `seconds` on a fixed schedule (not waiting for each publish, so a
 * slow one does not slow the rate), each carrying its publish time; `measured` ones are counted.
 */
async function publishAt(
  events: Events,
  tag: string,
  perSecond: number,
  seconds: number,
  measured: boolean,
): Promise<number> {
  const total = perSecond * seconds;
  const started = performance.now();
  const inFlight = new Set<Promise<unknown>>();
  for (let n = 0; n < total; n++) {
    const due = started + (n * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const t = performance.timeOrigin + performance.now();
    const publishing = events.publishEvent(TENANT, {
      id: eventId(['s8', tag, n]),
      event: EVENT,
      accountId: null,
      data: { n, t, m: measured ? 1 : 0 },
    });
    inFlight.add(publishing);
    void publishing.finally(() => inFlight.delete(publishing));
  }
  await Promise.all(inFlight);
  return total;
}

/**
 * S8 live stream: `clients` SSE clients of `GET /events/stream` on one API process while events are
 * published at `perSecond`, against a webhook endpoint of the same tenant receiving the same events
 * on a local receiver, in the same run: p99 publish to receipt at the streams − at the receiver.
 */
export const s8: Scenario = {
  name: 'S8',
  title: 'live event stream: 500 SSE clients beside a webhook endpoint, 200 events/s',
  async run(context) {
    const { scale, log, redis } = context;
    const size = sizer(scale);
    const clients = size(500, 50, 10);
    const perSecond = size(200, 100, 50);
    const seconds = size(20, 5, 1);
    const scope = new Scope();
    try {
      const sandbox = await startSandbox(0, context.cpuProfDir);
      scope.defer(() => sandbox.stop());
      const gateway = await startGateway({
        scenario: 'S8',
        redisUrl: redis.url,
        platformUrl: sandbox.url,
        realtime: { wsUrl: sandboxWsUrl(sandbox) },
        // Slots enough for the receiver (it answers at once) to take the events as they come: the
        // reference is a webhook delivered promptly, not an endpoint's backlog (S7 measures that).
        env: { WEBHOOK_ENDPOINT_CONCURRENCY: '32' },
        cpuProfDir: context.cpuProfDir,
      });
      scope.defer(() => context.probe.clear(gateway.prefix));
      scope.defer(() => gateway.stop());
      const receiver = new Receiver();
      const origin = await receiver.listen();
      scope.defer(() => receiver.close());
      await registerWebhook(gateway, `${origin}/hook`, EVENT);
      const config = loadGatewayConfig(gateway.env);
      const store = connectRedis(config);
      scope.defer(async () => store.disconnect());
      const events = createEvents(
        store,
        config.REDIS_PREFIX,
        parseKeyring(config.ENCRYPTION_KEY),
        webhookSettings(config),
      );
      scope.defer(() => events.close());

      log(`${clients} stream clients`);
      const streams = await openClients({
        origin: gateway.origin,
        path: `/api/${SLUG}/events/stream?events=${EVENT}`,
        apiKey: gateway.apiKey,
        clients,
      });
      scope.defer(() => streams.kill());
      // The first deliveries and frames (connections, the delivery process's start) are not measured.
      await publishAt(events, 'warm-up', perSecond, 2, false);
      log(`${perSecond} events/s for ${seconds} s`);
      const meter = new CpuMeter({
        api: () => processCpuMs(gateway.api.child.pid),
        webhooks: () => processCpuMs(gateway.webhooks?.child.pid),
        clients: () => processCpuMs(streams.pid),
        redis: () => context.probe.cpuMs(),
      });
      await meter.begin();
      const published = await publishAt(events, 'measured', perSecond, seconds, true);
      const cpu = await meter.end();
      const deadline = Date.now() + 30_000;
      while (receiver.latencies.length < published && Date.now() < deadline) await sleep(100);
      await sleep(1_000);
      const got = await streams.stop();

      const expected = published * clients;
      if (got.statuses['200'] !== clients || got.ended > 0)
        throw new InvalidLoad(['200'], { ...got.statuses, ...(got.ended > 0 ? { ended: got.ended } : {}) });
      if (got.frames === 0 || receiver.latencies.length === 0)
        throw new InvalidLoad(['events received'], {
          'stream frames': got.frames,
          'webhook deliveries': receiver.latencies.length,
        });
      const hooks = [...receiver.latencies].sort((a, b) => a - b);
      const webhookP99 = percentile(hooks, 0.99);
      const webhookP50 = percentile(hooks, 0.5);
      const added = got.latencyMs.p99 - webhookP99;
      const complete = got.frames === expected && hooks.length === published;
      const rows: Row[] = [
        {
          scenario: 'S8',
          metric: `stream p99 (${num(clients)} clients) − webhook p99, publish to receipt, ${perSecond}/s`,
          gateway: ms(got.latencyMs.p99),
          baseline: ms(webhookP99),
          ratio: `${added >= 0 ? '+' : ''}${ms(added)}`,
          target: '≤ +100 ms',
          verdict: complete ? verdict(added <= 100) : 'missed',
          values: { gateway: got.latencyMs.p99, baseline: webhookP99 },
        },
      ];
      const notes = [
        `S8 streams: ${num(got.frames)} of ${num(expected)} frames (fewest at one client ${num(got.fewest)} of ${num(published)}), p50 ${ms(got.latencyMs.p50)}, p99 ${ms(got.latencyMs.p99)}, max ${ms(got.latencyMs.max)}`,
        `S8 webhook: ${hooks.length} of ${published} delivered, p50 ${ms(webhookP50)}, p99 ${ms(webhookP99)}`,
        `S8 CPU while publishing: ${cpuLine(cpu)} (stream clients' process ${num(got.cpuMs / 1000, 1)} s in all)`,
      ];
      return {
        rows,
        notes,
        details: {
          clients,
          perSecond,
          seconds,
          published,
          stream: { ...got.latencyMs, frames: got.frames, expected, fewest: got.fewest },
          webhook: { p50: webhookP50, p99: webhookP99, delivered: hooks.length },
          cpu,
        },
      };
    } finally {
      await scope.close();
    }
  },
};
