import { GatewayError } from '@cg/contract';
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
 * "The ids query parameter is required" or "The type body field must be <= 7".
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
  const described = (first as { parentSchema?: { description?: string } }).parentSchema?.description;
  const rule = first.keyword === 'pattern' && described ? `must be ${described}` : first.message;
  if (field === '') return `The request ${context ?? ''} ${rule ?? 'is invalid'}`.replace(/\s+/g, ' ');
  return `The ${field} ${where} ${rule ?? 'is invalid'}`;
}

/** How deep a JSON body may nest. The contract's bodies need four levels at most. */
export const MAX_JSON_DEPTH = 32;

/**
 * What a parsed JSON body must not hold, else undefined: nesting deeper than `MAX_JSON_DEPTH`
 * (everything that walks the body later, down to the job's serialisation, would run out of stack)
 * or a number `JSON.parse` could only read as Infinity (`1e400`), which no schema keyword refuses
 * and `JSON.stringify` would turn into null. Walks with a stack of its own, so depth cannot hurt it.
 */
export function jsonBodyProblem(body: unknown): string | undefined {
  const pending: [unknown, number][] = [[body, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, depth] = next;
    if (typeof value === 'number' && !Number.isFinite(value))
      return 'the body holds a number too large to represent';
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) return `the body nests deeper than ${MAX_JSON_DEPTH} levels`;
    for (const child of Object.values(value)) pending.push([child, depth + 1]);
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
