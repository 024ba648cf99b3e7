import { laneSpace } from '@cg/queue';

/** The BullMQ queue of webhook deliveries: one job per (endpoint, event). */
export const WEBHOOKS_QUEUE = 'webhooks';

/**
 * Every Redis key of the event log and the webhooks, for one gateway prefix `p` (`REDIS_PREFIX`).
 *
 * A tenant's keys share the store's tenant hash tag `{t:<tenant>}` (packages/store/src/keys.ts), so
 * the scripts and MULTIs that touch the stream, its dedupe marks and the endpoints stay in one Redis
 * Cluster slot. The delivery queue is BullMQ's, under the queue package's tag `{p:q}` (its keys
 * `{p:q}:webhooks:…`), beside the operations queue, and so are the endpoints' lanes (packages/queue
 * `laneSpace`): each endpoint's deliveries wait in a lane named by its id, `{p:q}:webhooks-lane:<id>:…`,
 * found by the sweeper in `{p:q}:webhooks-lanes`.
 *
 * | key                                          | type   | what                                                   |
 * | -------------------------------------------- | ------ | ------------------------------------------------------ |
 * | `p:{t:<tenant>}:events`                      | STREAM | the tenant's events, field `e` the event JSON          |
 * | `p:{t:<tenant>}:evt:<eventId>`               | STRING | dedupe mark: the entry's stream id (`…\|f` once fanned out) |
 * | `p:{t:<tenant>}:webhooks`                    | ZSET   | the tenant's endpoint ids by creation time             |
 * | `p:{t:<tenant>}:webhook:<id>`                | HASH   | an endpoint (its secrets sealed) and its counters      |
 * | `p:{t:<tenant>}:webhook:<id>:attempts`       | STREAM | its delivery attempts, field `a` the attempt JSON       |
 * | `p:{t:<tenant>}:webhook:<id>:dlv:<dlvId>`    | HASH   | one delivery: event id and the body sent               |
 * | `p:{t:<tenant>}:webhook:<id>:pending`        | SET    | its delivery jobs not finished yet (dropped on delete)  |
 */
export function eventKeys(prefix: string) {
  const tenant = (tenantId: string) => `${prefix}:{t:${tenantId}}`;
  const endpoint = (tenantId: string, id: string) => `${tenant(tenantId)}:webhook:${id}`;
  return {
    bullmqPrefix: `{${prefix}:q}`,
    stream: (tenantId: string) => `${tenant(tenantId)}:events`,
    seen: (tenantId: string, eventId: string) => `${tenant(tenantId)}:evt:${eventId}`,
    endpoints: (tenantId: string) => `${tenant(tenantId)}:webhooks`,
    endpoint,
    attempts: (tenantId: string, id: string) => `${endpoint(tenantId, id)}:attempts`,
    delivery: (tenantId: string, id: string, deliveryId: string) =>
      `${endpoint(tenantId, id)}:dlv:${deliveryId}`,
    pending: (tenantId: string, id: string) => `${endpoint(tenantId, id)}:pending`,
    /** The endpoints' lanes: the lane of endpoint `<id>` is named `<id>`. */
    lanes: laneSpace(prefix, WEBHOOKS_QUEUE),
  };
}
export type EventKeys = ReturnType<typeof eventKeys>;
