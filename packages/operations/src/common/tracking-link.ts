import { type Static, Type } from 'typebox';
import { coerce, jsonText, millsToCents } from './coerce';

const { obj, str, num } = coerce;

/** Bounds the platform enforces (docs: sandbox README, tracking links); checked before enqueueing. */
export const LABEL_MAX = 100;
export const DESCRIPTION_MAX = 500;

const createdFields = {
  id: Type.String(),
  accountId: Type.String(),
  internalId: Type.Number(),
  type: Type.Number({ description: 'type 1 is the platform’s default search link; reserved' }),
  status: Type.Number(),
  label: Type.String(),
  description: Type.String(),
};

/** Tracking link as the contract gives it on creation: the identity fields only. */
export const CreatedTrackingLink = Type.Object(createdFields);
export type CreatedTrackingLink = Static<typeof CreatedTrackingLink>;

/** The full tracking link, with counters, as the update answers it. */
export const TrackingLink = Type.Object({
  ...createdFields,
  metadata: Type.String({ description: 'JSON text' }),
  createdAt: Type.Number({ description: 'Unix ms' }),
  clicks: Type.Number(),
  claims: Type.Number(),
  follows: Type.Number(),
  subscriptions: Type.Number(),
  totalNet: Type.Number({ description: 'cents' }),
  totalGross: Type.Number({ description: 'cents' }),
});
export type TrackingLink = Static<typeof TrackingLink>;

export function toCreatedTrackingLink(value: unknown): CreatedTrackingLink {
  const raw = obj(value);
  return {
    id: str(raw.id),
    accountId: str(raw.accountId),
    internalId: num(raw.internalId),
    type: num(raw.type),
    status: num(raw.status),
    label: str(raw.label),
    description: str(raw.description),
  };
}

export function toTrackingLink(value: unknown): TrackingLink {
  const raw = obj(value);
  return {
    ...toCreatedTrackingLink(raw),
    metadata: jsonText(raw.metadata),
    createdAt: num(raw.createdAt),
    clicks: num(raw.clicks),
    claims: num(raw.claims),
    follows: num(raw.follows),
    subscriptions: num(raw.subscriptions),
    // Link totals are mills upstream (docs/upstream-decisions.md); the contract's totals are cents.
    totalNet: millsToCents(raw.totalNet),
    totalGross: millsToCents(raw.totalGross),
  };
}
