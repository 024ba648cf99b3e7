import { isUtf8 } from 'node:buffer';
import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '@cg/contract';
import { isTextFormat, NON_BLANK_PATTERN, textProblem } from '@cg/operations';
import type { ValidateFunction } from 'ajv';
import type { FastifySchemaValidationError } from 'fastify/types/schema';

const LOCATION: Record<string, string> = {
  body: 'body field',
  querystring: 'query parameter',
  params: 'path parameter',
  headers: 'header',
};

/**
 * Turns a schema validation failure into a sentence that names the field and the rule, e.g.
 * "The ids query parameter is required", "The type body field must be <= 7" or "The name body
 * field must not contain control characters".
 */
export function validationMessage(
  errors: FastifySchemaValidationError[],
  context: string | undefined,
): string {
  const first = errors[0];
  const where = LOCATION[context ?? ''] ?? 'field';
  if (!first) return `Invalid ${where}`;
  const params = first.params as Record<string, unknown>;
  const field = first.instancePath.replace(/^\//, '').replaceAll('/', '.');
  if (first.keyword === 'required') {
    const missing =
      field === '' ? String(params.missingProperty) : `${field}.${String(params.missingProperty)}`;
    return `The ${missing} ${where} is required`;
  }
  // An empty query or path value (`?ids=`) is as good as none; an empty body string or header was
  // sent, and may belong to an optional field.
  if (first.keyword === 'minLength' && params.limit === 1 && field !== '')
    return context === 'body' || context === 'headers'
      ? `The ${field} ${where} must not be empty`
      : `The ${field} ${where} is required`;
  const { parentSchema, data } = first as { parentSchema?: { description?: string }; data?: unknown };
  const described = parentSchema?.description;
  // A NonBlank string: only white space (an empty one was answered above).
  const blank = first.keyword === 'pattern' && params.pattern === NON_BLANK_PATTERN;
  // A text field's string: what its format refuses in it.
  const text =
    first.keyword === 'format' && isTextFormat(params.format) && typeof data === 'string'
      ? textProblem(data, params.format)
      : undefined;
  const rule = blank
    ? 'must not be blank'
    : (text ?? (first.keyword === 'pattern' && described ? `must be ${described}` : first.message));
  if (field === '') return `The request ${context ?? ''} ${rule ?? 'is invalid'}`.replace(/\s+/g, ' ');
  return `The ${field} ${where} ${rule ?? 'is invalid'}`;
}

/** A UTF-16 unit of a surrogate pair without its other half (a whole pair is one code point here). */
const LONE_SURROGATE = /\p{Cs}/u;
const LONE_SURROGATE_PROBLEM = 'the body holds a string with half of a surrogate pair (\\ud800-\\udfff)';

/** Charsets whose bytes UTF-8 reads as they mean: its own names, and ASCII, a subset of it. */
const UTF8_LABELS = new Set(['utf-8', 'utf8', 'us-ascii', 'ascii']);

/**
 * Why a JSON body's bytes cannot be read as the text they claim to be, else undefined. The body is
 * read as UTF-8 (RFC 8259 § 8.1); bytes that are not UTF-8 would otherwise become U+FFFD and reach
 * the platform so, and a body declared in another charset, or content-encoded, would be misread.
 */
export function jsonBytesProblem(headers: IncomingHttpHeaders, body: Buffer): string | undefined {
  const encoding = headers['content-encoding']?.trim().toLowerCase();
  if (encoding && encoding !== 'identity') return 'the body must not be content-encoded (Content-Encoding)';
  const charset = /;\s*charset\s*=\s*["']?([^"';\s]*)/i
    .exec(headers['content-type'] ?? '')?.[1]
    ?.toLowerCase();
  if (charset !== undefined && !UTF8_LABELS.has(charset)) return 'send the body as UTF-8 JSON';
  return isUtf8(body) ? undefined : 'the body is not valid UTF-8';
}

/**
 * Why a request's query string cannot be read, else undefined. Fastify's parser keeps a broken
 * escape as it is (`search=%FF` searched for the text "%FF"); a query must be percent-encoded UTF-8.
 */
export function queryProblem(url: string): string | undefined {
  const at = url.indexOf('?');
  if (at < 0 || !url.includes('%', at)) return undefined;
  try {
    decodeURIComponent(url.slice(at + 1));
    return undefined;
  } catch {
    return 'the query string is not valid percent-encoded UTF-8 (a "%" is written %25)';
  }
}

/** How deep a JSON body may nest. The contract's bodies need four levels at most. */
export const MAX_JSON_DEPTH = 32;

/**
 * What a parsed JSON body must not hold, else undefined: nesting deeper than `MAX_JSON_DEPTH`
 * (everything that walks the body later, down to the job's serialisation, would run out of stack),
 * a number `JSON.parse` could only read as Infinity (`1e400`), which no schema keyword refuses
 * and `JSON.stringify` would turn into null, or a string or name with half of a surrogate pair
 * (`"\ud800"`), which is no text and would reach the platform as such. Walks with a stack of its
 * own, so depth cannot hurt it.
 */
export function jsonBodyProblem(body: unknown): string | undefined {
  const pending: [unknown, number][] = [[body, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, depth] = next;
    if (typeof value === 'number' && !Number.isFinite(value))
      return 'the body holds a number too large to represent';
    if (typeof value === 'string' && LONE_SURROGATE.test(value)) return LONE_SURROGATE_PROBLEM;
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) return `the body nests deeper than ${MAX_JSON_DEPTH} levels`;
    for (const [name, child] of Object.entries(value)) {
      if (LONE_SURROGATE.test(name)) return LONE_SURROGATE_PROBLEM;
      pending.push([child, depth + 1]);
    }
  }
  return undefined;
}

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * A query string's validator that first refuses the schema's number parameters not written in
 * decimal: the coercion that turns query text into numbers reads `0x10` as 16 and a blank as 0.
 * The schema's own validator runs as Fastify calls it (it coerces in place).
 */
export function decimalNumbersFirst(schema: unknown, validate: ValidateFunction) {
  const properties = (schema as { properties?: Record<string, { type?: string }> }).properties ?? {};
  const names = Object.keys(properties).filter((name) =>
    ['integer', 'number'].includes(properties[name]?.type ?? ''),
  );
  if (names.length === 0) return validate;
  const check = (data: unknown, context?: object) => {
    const values = (data ?? {}) as Record<string, unknown>;
    for (const name of names) {
      for (const value of [values[name]].flat()) {
        if (typeof value === 'string' && !DECIMAL.test(value))
          return {
            error: new GatewayError('BAD_REQUEST', `The ${name} query parameter must be a decimal number`),
          };
      }
    }
    return validate(data, context as never);
  };
  // Fastify lets a validator with `schemaEnv` coerce in place, and reads `errors` after a failure.
  return Object.defineProperties(check, {
    schemaEnv: { value: validate.schemaEnv },
    errors: { get: () => validate.errors },
  });
}
