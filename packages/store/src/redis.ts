import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';

/** Where the gateway's Redis is: the settings `connectRedis` reads (a `GatewayConfig` has them). */
export interface RedisSettings {
  REDIS_URL: string;
  /** Comma-separated seeds of a Redis Cluster (`host:port` or `redis://[user:password@]host:port`). */
  REDIS_CLUSTER_NODES?: string | undefined;
}

/** Either client; what code that must tell them apart (SCAN, addresses) takes. */
export type RedisConnection = Redis | Cluster;

/** The seeds a Cluster was made from, for `redisAddress` (ioredis keeps its own private). */
const clusterSeeds = new WeakMap<Cluster, string>();

/**
 * The gateway's Redis connection, for the store and the queue: a Redis Cluster client when
 * `REDIS_CLUSTER_NODES` is set, else one server at `REDIS_URL` (a plain URL is also accepted, for
 * tools and tests that have only that). `maxRetriesPerRequest: null` is what BullMQ requires of
 * connections used by workers; commands wait for a reconnect (or a failover) instead of failing.
 *
 * The gateway's code is typed against ioredis' `Redis`, and a Cluster is handed out under that type:
 * both are ioredis commanders with the same commands, scripts (`defineCommand`), MULTI, pipelines and
 * `duplicate()`, and every key the gateway writes together shares a hash tag (one slot). What differs
 * is handled where it matters: SCAN walks one node (`scanKeys` walks every master), a pipeline may
 * address one node only (reads of several tenants or proxies are sent as separate commands instead),
 * and a Cluster has no one address (`redisAddress`). A union type throughout would say this better;
 * it would touch every package's signatures, so it is left for a change of its own.
 */
export function connectRedis(where: string | RedisSettings, options: RedisOptions = {}): Redis {
  const settings = typeof where === 'string' ? { REDIS_URL: where } : where;
  const seeds = settings.REDIS_CLUSTER_NODES?.trim();
  if (seeds) return connectCluster(seeds, options) as unknown as Redis;
  return new Redis(settings.REDIS_URL, { maxRetriesPerRequest: null, enableReadyCheck: true, ...options });
}

/**
 * An ioredis Cluster on `seeds`. Reads go to masters (`scaleReads: 'master'`): a replica may lag, and
 * the queue reads what it just wrote. During a failover (a master gone until its replica is elected,
 * `cluster-node-timeout` plus an election) a command is retried every `retryDelayOnFailover` up to
 * `maxRedirections` times, about 15 s in all, so a failover of the usual few seconds is waited out
 * rather than failed; a cluster that stays down fails the command then.
 */
function connectCluster(seeds: string, options: RedisOptions): Cluster {
  const { nodes, auth } = parseSeeds(seeds);
  // Connection-level choices the callers make (`pnpm keys` fails fast, `pnpm run docs` never waits).
  const { lazyConnect, enableOfflineQueue, ...perNode } = options;
  const clusterOptions: ClusterOptions = {
    redisOptions: { maxRetriesPerRequest: null, enableReadyCheck: true, ...auth, ...perNode },
    enableReadyCheck: true,
    scaleReads: 'master',
    // Reconnects to the whole cluster (all seeds unreachable): soon at first, then every 2 s, forever.
    clusterRetryStrategy: (attempt) => Math.min(100 * attempt, 2_000),
    retryDelayOnFailover: 300,
    retryDelayOnClusterDown: 300,
    retryDelayOnTryAgain: 100,
    retryDelayOnMoved: 0,
    maxRedirections: 50,
    slotsRefreshTimeout: 2_000,
    // Learns of a failover other clients caused, and of resharding, without waiting for a MOVED.
    slotsRefreshInterval: 5_000,
    ...(lazyConnect === undefined ? {} : { lazyConnect }),
    ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
  };
  const cluster = new Cluster(nodes, clusterOptions);
  clusterSeeds.set(cluster, nodes.map((node) => `${node.host}:${node.port}`).join(','));
  return cluster;
}

/**
 * `REDIS_CLUSTER_NODES` as ioredis seeds: `host:port` or a `redis://` / `rediss://` URL each. The
 * first URL with a user or password gives them to every node (one cluster, one ACL); `rediss`, TLS.
 */
export function parseSeeds(seeds: string): {
  nodes: { host: string; port: number }[];
  auth: Pick<RedisOptions, 'username' | 'password' | 'tls'>;
} {
  const auth: Pick<RedisOptions, 'username' | 'password' | 'tls'> = {};
  const nodes = seeds
    .split(',')
    .map((seed) => seed.trim())
    .filter((seed) => seed !== '')
    .map((seed) => {
      const url = seedUrl(seed);
      if (url.protocol === 'rediss:') auth.tls = {};
      if (auth.password === undefined && url.password) {
        auth.password = decodeURIComponent(url.password);
        if (url.username) auth.username = decodeURIComponent(url.username);
      }
      return { host: url.hostname, port: Number(url.port || 6379) };
    });
  return { nodes, auth };
}

function seedUrl(seed: string): URL {
  try {
    const url = new URL(/^rediss?:\/\//.test(seed) ? seed : `redis://${seed}`);
    if (url.hostname) return url;
  } catch {}
  // Without the seed or the parser's error, which repeats it: it may hold a password.
  throw new Error('REDIS_CLUSTER_NODES: a seed is neither host:port nor a redis:// URL');
}

/**
 * Every key matching `pattern`. SCAN walks one server's keys, so on a Cluster it walks each master's
 * (a replica holds copies of its master's keys: they would be found twice).
 */
export async function scanKeys(redis: RedisConnection, pattern: string, count = 1_000): Promise<string[]> {
  const servers = redis instanceof Cluster ? await masters(redis) : [redis];
  const found: string[] = [];
  for (const server of servers) {
    let cursor = '0';
    do {
      const [next, batch] = await server.scan(cursor, 'MATCH', pattern, 'COUNT', count);
      cursor = next;
      found.push(...batch);
    } while (cursor !== '0');
  }
  return found;
}

/**
 * The nodes that serve slots now. The slot table is read afresh first: after a failover the client's
 * pool may still hold the old master (its connection closed) and not yet the new one.
 */
async function masters(cluster: Cluster): Promise<Redis[]> {
  await new Promise<void>((done, fail) =>
    cluster.refreshSlotsCache((error) => (error ? fail(error) : done())),
  );
  const owners = new Set(cluster.slots.map((nodes) => nodes[0]));
  return cluster.nodes('master').filter((node) => owners.has(`${node.options.host}:${node.options.port}`));
}

/**
 * Reports a connection's reachability once per change instead of an error per reconnect attempt:
 * one warning when Redis cannot be reached (the process keeps retrying, as an orchestrator that
 * starts Redis later expects), one line when it is back. Names only hosts and ports, never the URL,
 * which may hold a password.
 */
export function watchRedis(
  redis: RedisConnection,
  logger: {
    warn: (fields: object, message: string) => void;
    info: (fields: object, message: string) => void;
  },
): void {
  const where = redisAddress(redis);
  let down = false;
  redis.on('error', (error: NodeJS.ErrnoException) => {
    if (down) return;
    down = true;
    logger.warn({ redis: where, code: error.code }, `Redis at ${where} cannot be reached; retrying`);
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    logger.info({ redis: where }, `Redis at ${where} is reachable again`);
  });
}
/**
 * Whether Redis answers, which a ready connection does not say: Redis can hold its connections open
 * and answer nothing (`CLIENT PAUSE`, a long script, a stalled host), and every command then waits.
 * A PING every `everyMs` (one at a time, on the connection itself, so behind whatever it waits for)
 * tells it: Redis is not answering once a PING has waited `staleMs` for its reply. (On a Cluster the
 * PING goes to one node of it, a different one each time.)
 */
export function redisPulse(redis: RedisConnection, everyMs = 1_000, staleMs = 2_000) {
  /** When the PING still waiting for its reply was sent; undefined when none waits. */
  let askedAt: number | undefined;
  const timer = setInterval(() => {
    if (askedAt !== undefined) return;
    askedAt = Date.now();
    const answered = () => {
      askedAt = undefined;
    };
    redis.ping().then(answered, answered);
  }, everyMs).unref();
  return {
    answering: () => askedAt === undefined || Date.now() - askedAt < staleMs,
    stop: () => clearInterval(timer),
  };
}
export type { Redis } from 'ioredis';

/**
 * `host:port` of a connection (a Cluster's seeds, comma-separated), for messages: never its URL,
 * which may hold a password.
 */
export function redisAddress(redis: RedisConnection): string {
  if (redis instanceof Cluster) return `cluster ${clusterSeeds.get(redis) ?? '?'}`;
  return `${redis.options.host ?? '?'}:${redis.options.port ?? '?'}`;
}
