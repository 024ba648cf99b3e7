import { GatewayError } from '@cg/contract';
import {
  noUsage,
  USAGE_RETENTION_DAYS,
  type UsageBucket,
  type UsageCounterName,
  type UsageGrouping,
  type UsageRow,
} from '@cg/store';
import type { FastifyRequest } from 'fastify';
import { type TSchema, Type } from 'typebox';
import type { ApiRoute } from '../route';
import { answers, Iso, Nullable, ok, routeSchema } from '../schema';

const HOUR_MS = 3_600_000;
const RETENTION_MS = USAGE_RETENTION_DAYS * 24 * HOUR_MS;
/** A range without `from` starts this long before its end. */
const DEFAULT_SPAN_MS = 24 * HOUR_MS;

const Count = (description: string) => Type.Integer({ minimum: 0, description });

/** The counters of a row (packages/store `USAGE_COUNTERS`). */
const counterFields = () =>
  ({
    requests2xx: Count('requests answered below 400'),
    requests4xx: Count('requests answered 4xx (429s included)'),
    requests429: Count('requests answered 429 (also in requests4xx)'),
    requests5xx: Count('requests answered 5xx'),
    platformCalls: Count('calls sent to the platform (its API and media hosts) by the jobs'),
    platformErrors: Count('of those, calls that failed (an error status, a timeout, a lost connection)'),
    outcomeUnknown: Count('writes that ended outcome unknown (maybe applied)'),
    eventsPublished: Count('events stored in the event log'),
    webhooksDelivered: Count('webhook delivery attempts answered 2xx'),
    webhooksFailed: Count('webhook delivery attempts that failed (retried or given up)'),
    mediaBytesUp: Count('bytes of the media files uploaded'),
    mediaBytesDown: Count('bytes of the media files downloaded'),
  }) satisfies Record<UsageCounterName, TSchema>;

const UsageRowSchema = Type.Object({
  start: Iso('when the bucket starts (UTC hour or day)'),
  id: Nullable(
    Type.String(),
    'the API key id (groupBy=key) or service account id (groupBy=account); null: counted without one (events and deliveries have no key; requests without an account)',
  ),
  ...counterFields(),
});

const UsageAnswer = Type.Object({
  from: Iso('the range’s start, as applied'),
  to: Iso('the range’s end, as applied'),
  groupBy: Type.Union([Type.Literal('key'), Type.Literal('account')]),
  bucket: Type.Union([Type.Literal('hour'), Type.Literal('day')]),
  rows: Type.Array(UsageRowSchema, { description: 'oldest bucket first, then by id' }),
  totals: Type.Object(counterFields(), { description: 'the sum of the rows' }),
});

const DESCRIPTION = [
  `Counted per UTC hour by every process (API, workers, webhooks, listeners) and kept ${USAGE_RETENTION_DAYS} days: requests by the class of their answer (429 also on its own), the jobs' platform calls and their errors, outcome-unknown writes, events published, webhook delivery attempts delivered and failed, media bytes uploaded and downloaded.`,
  'A row is one bucket (hour or day) of one API key or one service account (groupBy): a request counts under its key and its account, a job’s platform calls under the key that queued it, an event under its account and under the key whose request it tells (a job’s end, a connection, a disconnection; the listener’s events have none), a webhook delivery under its event’s account only.',
  'A key of every account sees every account’s row (groupBy=account) and, if it is an admin key, every key’s row (groupBy=key); a key of some accounts sees those accounts’ rows, and any key other than an admin key of every account sees only its own key’s row.',
  'Each process counts in memory and writes what it counted about once a second (and when it stops), so the figures trail by about a second, and a process that dies without stopping loses at most its last second (while Redis is away, what it counted since; it is written once Redis is back).',
  `400 for a from after to, or more than ${USAGE_RETENTION_DAYS} days back.`,
].join(' ');

/** The rows the caller's key may see: its accounts, and only its own key unless it is an admin key of every account. */
function visibleTo(request: FastifyRequest, groupBy: UsageGrouping): (id: string | null) => boolean {
  const { keyId, access, accounts } = request.apiKey;
  if (groupBy === 'key') return access === 'admin' && accounts === null ? () => true : (id) => id === keyId;
  return accounts === null ? () => true : (id) => id !== null && accounts.includes(id);
}

/** `GET /usage`: the tenant's usage per key or account, per hour or day. */
export const getUsage: ApiRoute = {
  name: 'usage-get',
  method: 'GET',
  url: '/usage',
  access: 'read',
  schema: routeSchema('Usage per API key or per account, per hour or day', 'usage', {
    description: DESCRIPTION,
    querystring: Type.Object({
      from: Type.Optional(Iso(`default: 24 h before to (at most ${USAGE_RETENTION_DAYS} days back)`)),
      to: Type.Optional(Iso('default: now')),
      groupBy: Type.Union([Type.Literal('key'), Type.Literal('account')], { default: 'key' }),
      bucket: Type.Union([Type.Literal('hour'), Type.Literal('day')], { default: 'hour' }),
    }),
    response: answers(200, UsageAnswer),
  }),
  example: { query: { groupBy: 'account', bucket: 'day' } },
  async handler(request, _reply, { context }) {
    const query = request.query as {
      from?: string;
      to?: string;
      groupBy: UsageGrouping;
      bucket: UsageBucket;
    };
    const now = Date.now();
    const oldest = now - RETENTION_MS;
    const toMs = Math.min(query.to === undefined ? now : Date.parse(query.to), now);
    const fromMs =
      query.from === undefined ? Math.max(toMs - DEFAULT_SPAN_MS, oldest) : Date.parse(query.from);
    if (fromMs > toMs) throw new GatewayError('BAD_REQUEST', 'from must not be after to');
    // A minute's grace: a range of exactly the retention, asked for a moment ago, is still taken.
    if (fromMs < oldest - 60_000)
      throw new GatewayError(
        'BAD_REQUEST',
        `from is more than ${USAGE_RETENTION_DAYS} days back: usage is kept ${USAGE_RETENTION_DAYS} days`,
      );
    const rows = await context.store.usage.rows(request.tenantId, {
      fromMs,
      toMs,
      groupBy: query.groupBy,
      bucket: query.bucket,
      visible: visibleTo(request, query.groupBy),
    });
    return ok(200, 'Success', {
      from: new Date(fromMs).toISOString(),
      to: new Date(toMs).toISOString(),
      groupBy: query.groupBy,
      bucket: query.bucket,
      rows: rows.map(({ start, ...row }) => ({ start: new Date(start).toISOString(), ...row })),
      totals: totalsOf(rows),
    });
  },
};

function totalsOf(rows: UsageRow[]) {
  const totals = noUsage();
  for (const row of rows)
    for (const name of Object.keys(totals) as UsageCounterName[]) totals[name] += row[name];
  return totals;
}
