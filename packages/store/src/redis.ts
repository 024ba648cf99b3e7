import { Redis, type RedisOptions } from 'ioredis';

/**
 * A Redis connection for the store and the queue. `maxRetriesPerRequest: null` is what BullMQ
 * requires of connections used by workers; commands wait for a reconnect instead of failing.
 */
export function connectRedis(url: string, options: RedisOptions = {}): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, ...options });
}

/**
 * Reports a connection's reachability once per change instead of an error per reconnect attempt:
 * one warning when Redis cannot be reached (the process keeps retrying, as an orchestrator that
 * starts Redis later expects), one line when it is back. Names only host and port, never the URL,
 * which may hold a password.
 */
export function watchRedis(
  redis: Redis,
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
 * tells it: Redis is not answering once a PING has waited `staleMs` for its reply.
 */
export function redisPulse(redis: Redis, everyMs = 1_000, staleMs = 2_000) {
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

/** `host:port` of a connection, for messages: never its URL, which may hold a password. */
export function redisAddress(redis: Redis): string {
  return `${redis.options.host ?? '?'}:${redis.options.port ?? '?'}`;
}
