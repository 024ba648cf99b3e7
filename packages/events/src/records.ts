import { type Static, type TSchema, Type } from 'typebox';

const Iso = (description: string) => Type.String({ format: 'date-time', description });
const Nullable = <T extends TSchema>(schema: T, description: string) =>
  Type.Union([schema, Type.Null()], { description });

/** A webhook endpoint as callers see it: never a secret. */
export const WebhookEndpoint = Type.Object({
  id: Type.String({ description: 'endpoint id, `wh_…`' }),
  url: Type.String(),
  description: Type.String(),
  events: Nullable(Type.Array(Type.String()), 'the events it receives; null: every event'),
  accountIds: Nullable(
    Type.Array(Type.String()),
    "the tenant's accounts whose events it receives; null: all",
  ),
  enabled: Type.Boolean(),
  // Null when enabled, or when the caller disabled it.
  disabledReason: Nullable(Type.String(), 'why the gateway disabled it (410 Gone, failing too long)'),
  createdAt: Iso('creation time'),
  updatedAt: Iso('last change'),
});
export type WebhookEndpoint = Static<typeof WebhookEndpoint>;

/** The contract's Event envelope. */
export const GatewayEvent = Type.Object({
  id: Type.String({ description: '`evt_…`, deterministic from the occurrence: dedupe by it' }),
  event: Type.String({ description: 'the event name' }),
  // Null for the gateway's own events not tied to one (`webhooks.test`).
  accountId: Nullable(Type.String(), 'the service account id'),
  // ISO-8601 with milliseconds, UTC.
  timestamp: Iso('when it happened'),
  data: Type.Unknown({ description: "the platform's object for this event, as received" }),
});
export type GatewayEvent = Static<typeof GatewayEvent>;

/** One attempt of a delivery, as `GET /webhooks/{id}/deliveries` lists it. */
export const DeliveryAttempt = Type.Object({
  deliveryId: Type.String({ description: '`dlv_…`: one (endpoint, event)' }),
  eventId: Type.String(),
  event: Type.String(),
  accountId: Nullable(Type.String(), "the event's account; null for an event of the tenant"),
  attempt: Type.Integer({ description: 'attempt number of the delivery, from 1' }),
  status: Type.Union([Type.Literal('delivered'), Type.Literal('retrying'), Type.Literal('failed')], {
    description: 'delivered (2xx); retrying (another attempt at nextRetryAt); failed (given up)',
  }),
  httpStatus: Nullable(Type.Integer(), "the endpoint's HTTP status; null when none came"),
  error: Nullable(Type.String(), 'why it failed'),
  durationMs: Type.Integer(),
  nextRetryAt: Nullable(Iso('next attempt'), 'when the next attempt is due'),
  at: Iso('when the attempt started'),
  response: Type.String({ description: 'the response body, truncated to 1 KiB' }),
});
export type DeliveryAttempt = Static<typeof DeliveryAttempt>;
