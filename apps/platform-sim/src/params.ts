import { invalidField } from './errors';
import { decodeId } from './ids';

/** Request parsing helpers: every bad or missing field is a 400 with code 10 naming the field. */

export type Query = Record<string, string | string[] | undefined>;

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;

export function queryString(query: Query, name: string): string | undefined {
  const value = query[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? undefined : first;
}

export function requiredQueryString(query: Query, name: string): string {
  const value = queryString(query, name);
  if (value === undefined) throw invalidField(name);
  return value;
}

/** A non-negative integer query value; `max` clamps (platforms clamp page sizes rather than fail). */
export function queryInt(
  query: Query,
  name: string,
  fallback: number,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const raw = queryString(query, name);
  if (raw === undefined) return fallback;
  if (!/^-?\d+$/.test(raw)) throw invalidField(name);
  const value = Number(raw);
  if (value < min) throw invalidField(name);
  return Math.min(value, max);
}

export function queryLimit(query: Query): number {
  return queryInt(query, 'limit', DEFAULT_LIMIT, 1, MAX_LIMIT);
}

export function queryOffset(query: Query): number {
  return queryInt(query, 'offset', 0, 0);
}

/** A snowflake cursor (`before=`/`after=`); absent, empty or "0" means no bound. */
export function queryCursorMs(query: Query, name: string): number | null {
  const raw = queryString(query, name);
  if (raw === undefined || raw === '0') return null;
  const decoded = decodeId(raw);
  if (!decoded) throw invalidField(name);
  return decoded.ms;
}

export function queryCursorId(query: Query, name: string): string | null {
  const raw = queryString(query, name);
  if (raw === undefined || raw === '0') return null;
  if (!decodeId(raw)) throw invalidField(name);
  return raw;
}

/** A Unix ms bound; absent, empty or 0 means no bound. */
export function queryMs(query: Query, name: string): number | null {
  const value = queryInt(query, name, 0, 0);
  return value === 0 ? null : value;
}

export function queryCsv(query: Query, name: string): string[] {
  const raw = queryString(query, name);
  if (raw === undefined) return [];
  return raw
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
}

export type Body = Record<string, unknown>;

export function bodyObject(body: unknown): Body {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidField('body');
  return body as Body;
}

export function bodyString(
  body: Body,
  name: string,
  options: { required?: boolean; maxLength?: number; allowEmpty?: boolean } = {},
): string | undefined {
  const value = body[name];
  if (value === undefined || value === null) {
    if (options.required) throw invalidField(name);
    return undefined;
  }
  if (typeof value !== 'string') throw invalidField(name);
  if (!options.allowEmpty && value.trim().length === 0) throw invalidField(name);
  if (options.maxLength !== undefined && value.length > options.maxLength) throw invalidField(name);
  return value;
}

export function requiredBodyString(body: Body, name: string, maxLength = 10_000): string {
  const value = bodyString(body, name, { required: true, maxLength });
  if (value === undefined) throw invalidField(name);
  return value;
}

/** An id field: any non-empty string (an unknown or malformed id is a 404 at lookup, not a 400). */
export function requiredBodyId(body: Body, name: string): string {
  return requiredBodyString(body, name, 64);
}

export function bodyNumber(body: Body, name: string, fallback: number): number {
  const value = body[name];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalidField(name);
  return value;
}
