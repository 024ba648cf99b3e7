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
