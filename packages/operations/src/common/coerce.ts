/**
 * Upstream values → the contract's types. The platform may leave a field out, send null, or send a
 * number as a string; every converter answers the contract's type all the same, so callers can rely
 * on the shape. Conversions the contract asks for (mills → cents, JSON text) live here too, and
 * nowhere else.
 */

/** An upstream record, read field by field. */
export type Raw = Record<string, unknown>;

const obj = (value: unknown): Raw => (value !== null && typeof value === 'object' ? (value as Raw) : {});
const arr = (value: unknown): Raw[] => (Array.isArray(value) ? value.map(obj) : []);
const str = (value: unknown): string => (value === undefined || value === null ? '' : String(value));
const num = (value: unknown): number => (typeof value === 'number' ? value : Number(value ?? 0) || 0);
const bool = (value: unknown): boolean => value === true || value === 1 || value === '1' || value === 'true';
/** null where the platform leaves the field out or sends null, as the contract's nullable fields. */
const nullableStr = (value: unknown): string | null =>
  value === undefined || value === null ? null : str(value);
const nullableNum = (value: unknown): number | null =>
  value === undefined || value === null ? null : num(value);

export const coerce = { obj, arr, str, num, bool, nullableStr, nullableNum };

/**
 * Whether the platform sent a field the contract makes optional: not when it leaves it out or sends
 * null. An optional field is kept when sent, never invented (`f.optional` in record.ts).
 */
export const sent = (value: unknown): boolean => value !== undefined && value !== null;

/**
 * Fields the contract types as "JSON text" (metadata, messageTemplate, ...): the platform sends them
 * as strings; anything else (an object, null) is serialised so the field keeps its string type.
 */
export function jsonText(value: unknown, fallback = '{}'): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return fallback;
  return JSON.stringify(value);
}

/** Upstream mills (1/1000 USD) → the contract's cents, converted here and nowhere else. */
export function millsToCents(value: unknown): number {
  const mills = typeof value === 'number' ? value : Number(value ?? 0);
  return Number.isFinite(mills) ? Math.round(mills / 10) : 0;
}
