import { f, type RecordValue, record } from './record';

/** Bounds the platform enforces (docs: sandbox README, tracking links); checked before enqueueing. */
export const LABEL_MAX = 100;
export const DESCRIPTION_MAX = 500;

/** Tracking link as the contract gives it on creation: the identity fields only. */
export const CreatedTrackingLink = record({
  id: f.id(),
  accountId: f.id(),
  internalId: f.number(),
  type: f.number('type 1 is the platform’s default search link; reserved'),
  status: f.number(),
  label: f.string(),
  description: f.string(),
});
export type CreatedTrackingLink = RecordValue<typeof CreatedTrackingLink>;

/** The full tracking link, with counters, as the update answers it. */
export const TrackingLink = CreatedTrackingLink.extend({
  metadata: f.jsonText(),
  createdAt: f.timestamp(),
  clicks: f.number(),
  claims: f.number(),
  follows: f.number(),
  subscriptions: f.number(),
  // Link totals are mills upstream (docs/upstream-decisions.md); the contract's totals are cents.
  totalNet: f.centsFromMills(),
  totalGross: f.centsFromMills(),
});
export type TrackingLink = RecordValue<typeof TrackingLink>;
