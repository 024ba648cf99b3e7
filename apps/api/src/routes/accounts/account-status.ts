import { Type } from 'typebox';
import type { ApiRoute } from '../route';
import { answers, Iso, Nullable, ok, routeSchema } from '../schema';
import { readAccountStatus } from './account-health';

const Time = (description: string) => Nullable(Iso(description), description);
const Count = (description: string) => Type.Integer({ minimum: 0, description });

const AccountStatus = Type.Object({
  accountId: Type.String(),
  connection: Type.Object({
    state: Type.Union([Type.Literal('connected'), Type.Literal('reauth_required')], {
      description: 'reauth_required: the stored login no longer works; connect the account again',
    }),
    since: Time('since when: its latest connect, or when it came to need a new login'),
  }),
  session: Type.Object({
    present: Type.Boolean({ description: 'a platform session is stored (none while reauth_required)' }),
    obtainedAt: Time('when the session was obtained: the latest connect or re-login'),
    ageSeconds: Nullable(Type.Integer({ minimum: 0 }), 'the session’s age'),
    lastReloginAt: Time('when the workers last renewed an expired session with the stored login'),
  }),
  platform: Type.Object({
    lastSuccessAt: Time('the latest platform call that succeeded (noted at most once a second)'),
    lastFailure: Nullable(
      Type.Object({
        at: Iso('when'),
        code: Type.String({ description: 'the error code its caller was told (Error codes)' }),
        message: Type.String(),
        retryable: Type.Boolean({ description: 'the gateway tries such a call again by itself' }),
        upstream: Nullable(
          Type.Object({
            kind: Type.String({ description: 'the platform client’s verdict: rate_limited, unavailable, …' }),
            status: Nullable(Type.Integer(), 'the platform’s HTTP status'),
          }),
          'what the platform answered; null when it was not reached (every egress proxy down, …)',
        ),
      }),
      'the latest platform call that failed',
    ),
  }),
  lane: Type.Object(
    {
      inFlight: Count('requests running or about to (at most ACCOUNT_CONCURRENCY)'),
      backlog: Count('unfinished requests (at most ACCOUNT_MAX_BACKLOG: beyond, 429 RATE_LIMITED)'),
      waiting: Count('of them, those waiting for their turn'),
      nextStartAt: Time('the earliest next start the pacing allows (ACCOUNT_RATE_PER_MINUTE); null: now'),
      pausedUntil: Time('nothing of the account starts before then (a platform 429); null: not paused'),
      pauseReason: Nullable(Type.String(), 'why it is paused'),
      nextMediaStatsAt: Time(
        'the earliest start of the next media-stats request (MEDIA_STATS_GAP_MS); null: now',
      ),
    },
    { description: 'the account’s queue, shared by every service account of its platform account' },
  ),
  realtime: Type.Object({
    held: Type.Boolean({ description: 'a listener holds the account' }),
    connected: Type.Boolean({ description: 'its realtime connection is open and authenticated' }),
    since: Time('connected: since when (hand-overs between listeners included); else since when not'),
    lastCloseReason: Nullable(
      Type.String(),
      'how it last closed: closed, failed, gone (disconnected or reauth_required), rotate, closing, lost',
    ),
    lastFrameAt: Time('the latest frame received whose events are published (moved at each ping)'),
  }),
  egress: Type.Object({
    country: Type.String(),
    direct: Type.Boolean({ description: 'its calls leave without a proxy' }),
    proxy: Nullable(
      Type.Object({
        label: Type.String({ description: 'host:port' }),
        url: Nullable(
          Type.String(),
          'the proxy’s URL, its password masked (***); null: no longer configured',
        ),
        country: Nullable(Type.String(), 'the country it is configured for'),
        configured: Type.Boolean({ description: 'false: EGRESS_PROXIES no longer lists it' }),
        down: Type.Boolean({ description: 'marked down after proxy-layer failures (EGRESS_FAILURES)' }),
        downUntil: Time('left out until then'),
      }),
      'the proxy its calls leave through',
    ),
  }),
});

/**
 * `GET /accounts/{accountId}/status`: why an account may not be answering, from our own store (no
 * platform call): its connection and session, its latest platform outcomes, its queue, its realtime
 * connection and its egress.
 */
export const accountStatus: ApiRoute = {
  name: 'account-status',
  method: 'GET',
  url: '/accounts/:accountId/status',
  access: 'read',
  schema: routeSchema(
    'Why an account may not be answering: its connection, queue, realtime and egress',
    'accounts',
    {
      description:
        'Read from the gateway’s own store, no platform call: whether the account is connected or needs a new ' +
        'login, its platform session’s age and last renewal, the latest platform success and failure its ' +
        'requests met, its queue (requests in flight and waiting, the pacing, a pause after a platform 429 and ' +
        'why, the next media-stats slot), whether a listener holds its realtime connection and the latest ' +
        'frame, and the proxy its calls leave through (its password never shown) with its health. A ' +
        'disconnected account is 404 like an unknown one: its record goes with its secrets (GET ' +
        '/events?event=accounts.disconnected tells when).',
      params: Type.Object({ accountId: Type.String() }),
      response: answers(200, AccountStatus),
    },
  ),
  async handler(request, _reply, { context }) {
    return ok(200, 'Success', await readAccountStatus(request, context));
  },
};
