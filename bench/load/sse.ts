/**
 * S8's stream clients, a process of their own (so that their CPU is not the bench's nor the
 * gateway's): opens `clients` connections to `GET /events/stream`, reads every frame, and times each
 * measured event from its publish time (`data.t`, Unix ms from the publisher on this machine) to its
 * arrival. Over IPC: takes an `SseSpec`, answers `{ opened }` once every stream answered, then on
 * `stop` its `SseResult`, and exits.
 */
import { request } from 'node:http';

export interface SseSpec {
  origin: string;
  path: string;
  apiKey: string;
  clients: number;
}

export interface SseResult {
  /** Streams by the status they were answered with (`200`), and `error` for a failed connection. */
  statuses: Record<string, number>;
  /** Streams the gateway ended (or that failed) before `stop`. */
  ended: number;
  /** Measured frames received, over all clients, and the fewest one client received. */
  frames: number;
  fewest: number;
  /** Publish to arrival of the measured frames, ms. */
  latencyMs: { p50: number; p99: number; max: number };
  cpuMs: number;
}

const send = (message: unknown) => process.send?.(message);

/** Unix ms with a fraction, from the same clock `Date.now()` reads. */
const now = () => performance.timeOrigin + performance.now();

function run(spec: SseSpec): void {
  const statuses: Record<string, number> = {};
  let answered = 0;
  let ended = 0;
  let stopping = false;
  const latencies: number[] = [];
  const counts = new Array<number>(spec.clients).fill(0);
  const requests: ReturnType<typeof request>[] = [];
  const cpuAtStart = process.cpuUsage();

  const settle = (status: string) => {
    statuses[status] = (statuses[status] ?? 0) + 1;
    answered += 1;
    if (answered === spec.clients) send({ opened: true });
  };

  for (let i = 0; i < spec.clients; i++) {
    const url = new URL(spec.path, spec.origin);
    const req = request(url, { agent: false, headers: { 'x-api-key': spec.apiKey } }, (res) => {
      settle(String(res.statusCode));
      res.setEncoding('utf8');
      let text = '';
      res.on('data', (chunk: string) => {
        const at = now();
        text += chunk;
        let end = text.indexOf('\n\n');
        while (end !== -1) {
          const block = text.slice(0, end);
          text = text.slice(end + 2);
          end = text.indexOf('\n\n');
          // Measured events carry `"m":1` and their publish time `"t":<ms>` in their data.
          if (!block.includes('"m":1')) continue;
          const t = /"t":(\d+(?:\.\d+)?)/.exec(block);
          if (!t) continue;
          counts[i] = (counts[i] ?? 0) + 1;
          latencies.push(at - Number(t[1]));
        }
      });
      res.on('close', () => {
        if (!stopping) ended += 1;
      });
    });
    req.on('error', () => {
      if (!stopping) {
        if (answered < spec.clients) settle('error');
        else ended += 1;
      }
    });
    req.end();
    requests.push(req);
  }

  process.on('message', (message: { stop?: boolean }) => {
    if (!message.stop) return;
    stopping = true;
    for (const req of requests) req.destroy();
    const sorted = Float64Array.from(latencies).sort();
    const at = (p: number) =>
      sorted.length === 0
        ? Number.NaN
        : (sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN);
    const cpu = process.cpuUsage(cpuAtStart);
    const result: SseResult = {
      statuses,
      ended,
      frames: latencies.length,
      fewest: Math.min(...counts),
      latencyMs: { p50: at(0.5), p99: at(0.99), max: at(1) },
      cpuMs: (cpu.user + cpu.system) / 1000,
    };
    send({ result });
    setTimeout(() => process.exit(0), 100);
  });
}

process.once('message', (spec: SseSpec) => run(spec));
