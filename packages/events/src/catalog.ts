/** The contract's event names (its "Event names" table, in its order), then the gateway's own. */
export const EVENT_NAMES = [
  'messages.received',
  'messages.sent',
  'ppv.purchased',
  'subscriptions.new',
  'tips.received',
  'messages.deleted',
  'messages.read',
  'messages.reaction_added',
  'messages.reaction_removed',
  'users.typing',
  'subscriptions.expired',
  'followers.new',
  'followers.removed',
  'transactions.new',
  'media.purchased',
  'stories.purchased',
  'payouts.created',
  'payouts.updated',
  'posts.created',
  'posts.updated',
  'posts.deleted',
  'posts.pinned',
  'posts.liked',
  'media.liked',
  'accounts.connected',
  'accounts.disconnected',
  'accounts.reauth_required',
  'accounts.authentication_failed',
  'jobs.completed',
  'jobs.failed',
  // The gateway's own: an endpoint it disabled (410 Gone, or failing too long); `data` {endpointId, reason}.
  'webhooks.disabled',
] as const;
export type EventName = (typeof EVENT_NAMES)[number];

/** The gateway's own event sent by `POST /webhooks/{id}/test`; never in the log, never filtered out. */
export const TEST_EVENT = 'webhooks.test';

const KNOWN = new Set<string>(EVENT_NAMES);
export const isEventName = (name: string): name is EventName => KNOWN.has(name);
