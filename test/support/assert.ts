import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { expect } from 'vitest';

/** A gateway answer as `gw` returns it; bodies are read field by field, like a user would. */
export interface GatewayAnswer {
  status: number;
  body: any;
}

/** Every way `value` breaks `schema`, as "path message" lines: `[]` when it conforms. */
export function errorsOf(schema: TSchema, value: unknown): string[] {
  return [...Value.Errors(schema, value)].map((e) => `${e.instancePath} ${e.message}`);
}

export interface EnvelopeExpectation {
  /**
   * The envelope's `message`, compared with `toEqual` so a matcher such as `expect.any(String)` fits.
   * @defaultValue 'Success'
   */
  message?: unknown;
  /**
   * How much of the platform's answer inside `data` is checked: `'success'` its `status_code` 200 and
   * `data.success` true; `'status_code'` the former only (posts/walls answers carry no success flag);
   * `'none'` nothing (connect's second-factor step answers no platform record).
   * @defaultValue 'success'
   */
  platform?: 'success' | 'status_code' | 'none';
}

/** The gateway's success envelope: `statusCode`, `message`, an ISO `timestamp` and the platform's answer. */
export function expectEnvelope(body: any, statusCode: number, expectation: EnvelopeExpectation = {}): void {
  const { message = 'Success', platform = 'success' } = expectation;
  expect(body.statusCode).toBe(statusCode);
  expect(body.message).toEqual(message);
  expect(typeof body.timestamp).toBe('string');
  expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
  if (platform !== 'none') expect(body.data.status_code).toBe(200);
  if (platform === 'success') expect(body.data.data.success).toBe(true);
}

/** A success answer: the HTTP status and the envelope's `statusCode` are both `status`. */
export function expectSuccess(
  response: GatewayAnswer,
  status: 200 | 201 = 200,
  expectation: EnvelopeExpectation = {},
): void {
  expect(response.status).toBe(status);
  expectEnvelope(response.body, status, expectation);
}

/** The one error body (`statusCode`, `code`, `error`, `message`), its message naming every one of `words`. */
export function expectError(response: GatewayAnswer, status: number, code: string, ...words: string[]): void {
  expect(response.status).toBe(status);
  expect(response.body).toMatchObject({ statusCode: status, code });
  expect(typeof response.body.message).toBe('string');
  expect(typeof response.body.error).toBe('string');
  for (const word of words) expect(response.body.message).toContain(word);
}

/** A 400 BAD_REQUEST whose message names every one of `words` (the field at fault, mostly). */
export function expectBadRequest(response: GatewayAnswer, ...words: string[]): void {
  expectError(response, 400, 'BAD_REQUEST', ...words);
  expect(response.body.error).toBe('Bad Request');
}

/** A 404 NOT_FOUND whose message names every one of `words`. */
export function expectNotFound(response: GatewayAnswer, ...words: string[]): void {
  expectError(response, 404, 'NOT_FOUND', ...words);
  expect(response.body.error).toBe('Not Found');
}
