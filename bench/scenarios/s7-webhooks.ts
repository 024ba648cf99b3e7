import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadGatewayConfig, webhookSettings } from '@cg/config';
import { createEvents, type Events, eventId } from '@cg/events';
import { parseKeyring } from '@cg/secrets';
import { connectRedis } from '@cg/store';
import { sleep } from '../lib/processes';
import { commandDelta } from '../lib/redis';
import { ms, num, percentile, type Row, verdict } from '../lib/report';
import { type Scenario, sizer } from '../lib/scenario';
import { Scope } from '../lib/scope';
import { registerWebhook, sandboxWsUrl, startGateway, startSandbox } from '../lib/stack';

/** The bootstrap key's tenant (`GATEWAY_BOOTSTRAP_TENANT`), whose endpoints the scenario registers. */
const TENANT = 'default';
/** The hot endpoint's receiver answers after this long: a real one is not instant. */
const HOT_ANSWER_MS = 5;
/** Cold events published per second, while alone and beside the backlog. */
const COLD_PER_SECOND = 20;

/** Where the deliveries arrive: the cold ones' arrival times by event id, and a count of the hot ones. */
class Receiver {
  readonly coldAt = new Map<string, number>();
  hot = 0;
  private readonly server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      if (request.url === '/cold') {
        this.coldAt.set(String(request.headers['webhook-id']), Date.now());
        response.writeHead(204).end();
      } else {
        this.hot += 1;
        setTimeout(() => response.writeHead(204).end(), HOT_ANSWER_MS);
      }
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

/**
 * Publishes a cold event every 1/COLD_PER_SECOND s for `seconds`, then waits for them: each one's
 * latency, publish to arrival (NaN when it never came within 30 s).
 */
async function coldLatencies(events: Events, receiver: Receiver, tag: string, seconds: number) {
  const sent = new Map<string, number>();
  for (let n = 0; n < seconds * COLD_PER_SECOND; n++) {
    const id = eventId(['s7-cold', tag, n]);
    sent.set(id, Date.now());
    await events.publishEvent(TENANT, { id, event: 'messages.received', accountId: null, data: { n } });
    await sleep(1_000 / COLD_PER_SECOND);
  }
  const deadline = Date.now() + 30_000;
  while ([...sent.keys()].some((id) => !receiver.coldAt.has(id)) && Date.now() < deadline) await sleep(50);
  const latencies = [...sent].map(([id, at]) => (receiver.coldAt.get(id) ?? Number.NaN) - at);
  const arrived = latencies.filter(Number.isFinite).sort((a, b) => a - b);
  return {
    sent: sent.size,
    arrived: arrived.length,
    p50: percentile(arrived, 0.5),
    p99: percentile(arrived, 0.99),
  };
}

/**
 * S7 webhook fairness: one endpoint's event latency alone, then beside another endpoint of the same
 * tenant flooded with 20,000 events (its receiver answering in 5 ms, `WEBHOOK_ENDPOINT_CONCURRENCY`
 * 2, so the backlog takes about a minute), and the Redis commands each flooded delivery cost.
 * Events are published into the gateway's event log from the bench's process, as a listener would.
 */
export const s7: Scenario = {
  name: 'S7',
  title: 'webhook fairness: one endpoint beside another with 20,000 queued deliveries',
  async run(context) {
    const { scale, log, redis, probe } = context;
    const size = sizer(scale);
    const hotEvents = size(20_000, 2_000, 200);
    const seconds = size(10, 5, 1);
    const scope = new Scope();
    try {
      const sandbox = await startSandbox(0, context.cpuProfDir);
      scope.defer(() => sandbox.stop());
      const gateway = await startGateway({
        scenario: 'S7',
        redisUrl: redis.url,
        platformUrl: sandbox.url,
        realtime: { wsUrl: sandboxWsUrl(sandbox) },
        cpuProfDir: context.cpuProfDir,
      });
      scope.defer(() => probe.clear(gateway.prefix));
      scope.defer(() => gateway.stop());
      const receiver = new Receiver();
      const origin = await receiver.listen();
      scope.defer(() => receiver.close());
      await registerWebhook(gateway, `${origin}/cold`, 'messages.received');
      await registerWebhook(gateway, `${origin}/hot`, 'tips.received');
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

      // The delivery process starts beside the API: the first deliveries (its start, the first
      // connection) are not measured.
      await coldLatencies(events, receiver, 'warm-up', 1);
      log(`cold endpoint alone, ${COLD_PER_SECOND} events/s, ${seconds} s`);
      const alone = await coldLatencies(events, receiver, 'alone', seconds);

      log(`hot endpoint: ${hotEvents} events published`);
      const before = await probe.commandCounts();
      const hotStarted = Date.now();
      for (let n = 0; n < hotEvents; n += 100)
        await Promise.all(
          Array.from({ length: Math.min(100, hotEvents - n) }, (_unused, k) =>
            events.publishEvent(TENANT, {
              id: eventId(['s7-hot', n + k]),
              event: 'tips.received',
              accountId: null,
              data: { n: n + k },
            }),
          ),
        );
      const publishedMs = Date.now() - hotStarted;
      log(`cold endpoint beside the hot backlog, ${seconds} s`);
      const beside = await coldLatencies(events, receiver, 'beside', seconds);
      const hotDeadline = Date.now() + 600_000;
      while (receiver.hot < hotEvents && Date.now() < hotDeadline) await sleep(200);
      const drainedMs = Date.now() - hotStarted;
      const commands = commandDelta(before, await probe.commandCounts());
      const perHot = commands.total / Math.max(1, receiver.hot);

      const added = beside.p99 - alone.p99;
      const complete =
        alone.arrived === alone.sent && beside.arrived === beside.sent && receiver.hot >= hotEvents;
      const rows: Row[] = [
        {
          scenario: 'S7',
          metric: `cold endpoint p99 beside ${num(hotEvents)} hot deliveries − alone`,
          gateway: ms(beside.p99),
          baseline: ms(alone.p99),
          ratio: Number.isFinite(added) ? `${added >= 0 ? '+' : ''}${ms(added)}` : '—',
          target: '≤ +100 ms',
          verdict: complete ? verdict(added <= 100) : 'missed',
          values: { gateway: beside.p99, baseline: alone.p99 },
        },
        {
          scenario: 'S7',
          metric: 'Redis commands per hot delivery (publish to delivered)',
          gateway: num(perHot, 1),
          baseline: '—',
          ratio: '—',
          target: 'reported',
          verdict: 'n/a',
          values: { gateway: perHot },
        },
      ];
      const notes = [
        `S7 cold alone: ${alone.arrived} of ${alone.sent} arrived, p50 ${ms(alone.p50)}, p99 ${ms(alone.p99)}`,
        `S7 cold beside: ${beside.arrived} of ${beside.sent} arrived, p50 ${ms(beside.p50)}, p99 ${ms(beside.p99)}`,
        `S7 hot: ${receiver.hot} of ${hotEvents} delivered; published in ${ms(publishedMs)}, all delivered ${ms(drainedMs)} after the first was published; ${redis.source === 'dedicated' ? '' : `Redis ${redis.source}: commands include other clients; `}${num(commands.total)} Redis commands`,
      ];
      return {
        rows,
        notes,
        details: {
          hotEvents,
          seconds,
          alone,
          beside,
          publishedMs,
          drainedMs,
          hotDelivered: receiver.hot,
          commands,
        },
      };
    } finally {
      await scope.close();
    }
  },
};
