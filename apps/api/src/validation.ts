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
  // An empty string where a value is needed (`?ids=`) is as good as none.
  if (first.keyword === 'minLength' && params.limit === 1 && field !== '')
    return `The ${field} ${where} is required`;
  const described = (first as { parentSchema?: { description?: string } }).parentSchema?.description;
  const rule = first.keyword === 'pattern' && described ? `must be ${described}` : first.message;
  if (field === '') return `The request ${context ?? ''} ${rule ?? 'is invalid'}`.replace(/\s+/g, ' ');
  return `The ${field} ${where} ${rule ?? 'is invalid'}`;
}
