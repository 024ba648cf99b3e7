import { GatewayError } from '@cg/contract';
import { laneOfAccount, listenHeld } from '@cg/queue';
import type { AccountStatusTimes } from '@cg/store';
import type { FastifyRequest } from 'fastify';
import type { ApiContext } from '../../context';
import { namedAccountId } from '../../scope';

// What `GET /accounts/{id}/status` answers, read from where each part is kept: the account's record
// (status, session times, realtime mark), its health hash (platform outcomes, realtime connection:
// packages/store account-health.ts), its lane (packages/queue `Lanes.inspect`), the listen queue's
// lock (held or not) and the proxies' health. Reads only, in two round trips; no secret is read
// but the proxy's URL, whose password is masked.

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The caller's account's status, or 404 (another tenant's, outside the key, or disconnected). */
export async function readAccountStatus(request: FastifyRequest, context: ApiContext) {
  const { accountId: named } = request.params as { accountId: string };
  const { tenantId } = request;
  const { store, redis, config } = context;
  // Named by its platform account id: its service account id (an unknown one stays as named: 404).
  const accountId = await namedAccountId(request, store, named);
  const [times, health, held] = await Promise.all([
    store.accounts.statusOf(tenantId, accountId),
    store.health.read(tenantId, accountId),
    listenHeld(redis, config.REDIS_PREFIX, tenantId, accountId),
  ]);
  // A disconnected account's record is destroyed with its secrets: it is an unknown one.
  if (!times) throw new GatewayError('NOT_FOUND', `account ${accountId} not found`);
  const { record } = times;
  const [lane, egress] = await Promise.all([
    context.queue.lanes.inspect(laneOfAccount(record)),
    egressOf(record.egressId, record.egressLabel, context),
  ]);
  const now = Date.now();
  const { realtime } = health;
  const connected = held && realtime.upAt !== null && realtime.downAt === null;
  return {
    accountId,
    connection: { state: record.status, since: iso(since(times)) },
    session: {
      present: times.hasSession,
      obtainedAt: iso(times.sessionAt),
      ageSeconds:
        times.hasSession && times.sessionAt !== null
          ? Math.max(0, Math.floor((now - times.sessionAt) / 1000))
          : null,
      lastReloginAt: iso(times.reloginAt),
    },
    platform: {
      lastSuccessAt: iso(health.lastSuccessAt),
      lastFailure:
        health.lastFailure === null
          ? null
          : {
              at: iso(health.lastFailure.at),
              code: health.lastFailure.code,
              message: health.lastFailure.message,
              retryable: health.lastFailure.retryable,
              upstream:
                health.lastFailure.kind === undefined
                  ? null
                  : { kind: health.lastFailure.kind, status: health.lastFailure.status ?? null },
            },
    },
    lane: {
      inFlight: lane.inFlight,
      backlog: lane.backlog,
      waiting: lane.waiting,
      nextStartAt: iso(lane.nextStartAt),
      pausedUntil: iso(lane.pausedUntil),
      pauseReason: lane.pauseWhy,
      nextMediaStatsAt: iso(lane.nextGappedAt),
    },
    realtime: {
      held,
      connected,
      since: iso(connected ? realtime.upAt : realtime.downAt),
      lastCloseReason: realtime.downWhy,
      lastFrameAt: iso(times.realtimeMark),
    },
    egress: { country: record.countryCode, ...egress },
  };
}

/** Since when the account's status holds; records from before it was kept: their own times. */
function since(times: AccountStatusTimes): number {
  const { record } = times;
  return times.statusAt ?? (record.status === 'reauth_required' ? record.updatedAt : record.createdAt);
}

/** The proxy the account leaves through: its label, its URL with the password masked, its health. */
async function egressOf(egressId: string, label: string, { egress, proxies }: ApiContext) {
  if (egressId === '') return { direct: true, proxy: null };
  const proxy = egress?.byId.get(egressId);
  if (proxy === undefined)
    return {
      direct: false,
      proxy: { label, url: null, country: null, configured: false, down: false, downUntil: null },
    };
  const [downMs = 0] = await proxies.downFor([proxy.id]);
  return {
    direct: false,
    proxy: {
      label: proxy.label,
      url: maskedUrl(proxy.url, proxy.label),
      country: proxy.country,
      configured: true,
      down: downMs > 0,
      downUntil: downMs > 0 ? iso(Date.now() + downMs) : null,
    },
  };
}

/** `http://user:***@host:port`: the user name kept, the password never shown. */
export function maskedUrl(url: string, label: string): string {
  const parsed = new URL(url);
  const user = parsed.username === '' ? '' : `${parsed.username}${parsed.password === '' ? '' : ':***'}@`;
  return `${parsed.protocol}//${user}${label}`;
}
