/**
 * The security cases of every operation of the registry, generated from its definition: a new
 * operation is covered the day it is added, with nothing to write here. For each operation:
 *
 * - 401 without an API key and with a wrong one (`runCommonRouteTests`);
 * - 404 for another tenant's account and for an unknown one, in both directions, where the operation
 *   names an account (`session: 'path'`, or `'any'` with an `accountId` query parameter);
 * - 400 in the error shape for a malformed body (not an object, each required field missing, each
 *   field of the wrong type, each value out of its field's bounds, down to nested objects and list
 *   items), a malformed query (each required parameter missing, each value its schema or `check`
 *   refuses) and a malformed path parameter, each derived from the schemas and built on the
 *   operation's `example` (whose own validity packages/operations/test/examples.test.ts checks);
 *
 * and in every one of these cases nothing reached the platform (the sandbox's request count) and
 * nothing was queued (no new job in Redis).
 */
import { ErrorBodySchema } from '@cg/contract';
import { allOperations, type OperationDef, type OperationSchemas } from '@cg/operations';
import { queueKeys } from '@cg/queue';
import type { TObject, TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { errorsOf, expectBadRequest, expectNotFound, type GatewayAnswer } from '../support/assert';
import { connectAccount, runCommonRouteTests } from '../support/common';
import { gw, scanKeys, startStack, type TestStack } from '../support/stack';

type Operation = OperationDef<OperationSchemas>;
type Values = Record<string, unknown>;

/** One request of an operation, by part, as its schemas read them (numbers as numbers). */
interface Input {
  params: Values;
  query: Values | undefined;
  /** `NO_BODY`: the request carries none. */
  body: unknown;
}

/** A request sent without a body (`gw` sends none for `undefined`). */
const NO_BODY = undefined;

let stack: TestStack;
/** A connected account of tenant t1 (the key every malformed request is sent with) and one of t2. */
const accounts = { t1: '', t2: '' };
/** Well formed (`newId('acct')`), and no tenant's. */
const UNKNOWN_ACCOUNT = 'acct_0000000000000000000000';

beforeAll(async () => {
  stack = await startStack();
  accounts.t1 = await connectAccount(stack, 'creator_demo', stack.keys.t1);
  accounts.t2 = await connectAccount(stack, 'creator_2fa', stack.keys.t2);
});
afterAll(async () => {
  await stack?.stop();
});

// ---------------------------------------------------------------------------------------------------
// Requests built from a definition

/** The part of the input that names the account, if the operation names one. */
function accountPart(op: Operation): 'params' | 'query' | undefined {
  if (op.session === 'path') return 'params';
  if (op.session === 'any' && op.schemas.querystring?.properties.accountId) return 'query';
  return undefined;
}

/** The operation's example with `account` in place of the example's account. */
function baseline(op: Operation, account: string): Input {
  const input: Input = {
    params: { ...op.example.params },
    query: op.example.query === undefined ? undefined : { ...op.example.query },
    body: op.example.body,
  };
  const part = accountPart(op);
  if (part === 'params') input.params.accountId = account;
  if (part === 'query' && input.query) input.query.accountId = account;
  return input;
}

/** The URL of `input` under /api/{platform}; `keepAccount` leaves `{accountId}` for `runCommonRouteTests`. */
function urlOf(op: Operation, input: Input, keepAccount = false): string {
  const path = op.path.replace(/:([A-Za-z]+)/g, (_, name: string) =>
    keepAccount && name === 'accountId' ? '{accountId}' : encodeURIComponent(String(input.params[name])),
  );
  const query = new URLSearchParams(
    Object.entries(input.query ?? {}).map(([name, value]): [string, string] => [name, String(value)]),
  ).toString();
  return query === '' ? path : `${path}?${query}`;
}

const send = (op: Operation, input: Input, key = stack.keys.t1) =>
  gw(stack, op.method, urlOf(op, input), {
    key,
    ...(op.schemas.body && input.body !== NO_BODY ? { body: input.body } : {}),
  });

/** How the API reads a query or path number: decimal text only (apps/api/src/validation.ts). */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** Query and path values arrive as text, which the API converts to the schema's types as here. */
function fromText(schema: TObject, values: Values): Values {
  return Object.fromEntries(
    Object.entries(values).map(([name, value]) => {
      const type = (schema.properties[name] as Schema | undefined)?.type;
      const text = String(value);
      if ((type === 'integer' || type === 'number') && DECIMAL.test(text)) return [name, Number(text)];
      if (type === 'boolean' && (text === 'true' || text === 'false')) return [name, text === 'true'];
      return [name, text];
    }),
  );
}

/** Whether the operation's definition (its schemas, then its `check`) refuses `input`. */
function refused(op: Operation, input: Input): boolean {
  const { params, querystring, body } = op.schemas;
  const typed = {
    params: params ? fromText(params, input.params) : undefined,
    query: querystring ? fromText(querystring, input.query ?? {}) : undefined,
    body: input.body,
  };
  if (params && !Value.Check(params, typed.params)) return true;
  if (querystring && !Value.Check(querystring, typed.query)) return true;
  if (body && !Value.Check(body, typed.body)) return true;
  return op.check?.(typed as never) !== undefined;
}

// ---------------------------------------------------------------------------------------------------
// Malformed requests derived from the schemas

interface Malformed {
  /** What is wrong, for the test's name. */
  what: string;
  input: Input;
  /** Words the 400's message must contain (the field at fault). */
  names: string[];
}

type Schema = TSchema & {
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  required?: string[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
};

/**
 * A JSON value of another type than the schema's, or undefined where the schema has no single type
 * (a union, or anything): no value is of the wrong type there.
 */
function wrongType(schema: Schema): unknown {
  switch (schema.type) {
    case 'string':
      return 12345;
    case 'integer':
    case 'number':
      return 'twelve';
    case 'boolean':
      return 'yes';
    case 'array':
      return 'not-a-list';
    case 'object':
      return 'not-an-object';
    default:
      return undefined;
  }
}

const without = (values: Values, name: string) =>
  Object.fromEntries(Object.entries(values).filter(([k]) => k !== name));

/**
 * The body's malformations, down from `value` (the example's, at `path`): each required field left
 * out, each field of the wrong type, each value out of its field's bounds that the definition
 * refuses (`refuses`, of a whole body), and the same inside the nested objects and lists the
 * example fills in. `rebuild` puts a changed `value` back into the whole body.
 */
function bodyFieldCases(
  schema: Schema,
  value: unknown,
  path: string,
  rebuild: (changed: unknown) => unknown,
  refuses: (body: unknown) => boolean,
): { what: string; body: unknown; names: string[] }[] {
  const cases: { what: string; body: unknown; names: string[] }[] = [];
  const at = (name: string) => (path === '' ? name : `${path}.${name}`);
  if (schema.type === 'object' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const fields = value as Values;
    for (const name of schema.required ?? [])
      cases.push({
        what: `without its required ${at(name)}`,
        body: rebuild(without(fields, name)),
        names: [`The ${at(name)} body field is required`],
      });
    for (const [name, field] of Object.entries(schema.properties ?? {})) {
      const wrong = wrongType(field);
      if (wrong !== undefined)
        cases.push({
          what: `with ${at(name)} of the wrong type (${JSON.stringify(wrong)})`,
          body: rebuild({ ...fields, [name]: wrong }),
          names: [`The ${at(name)} body field`],
        });
      for (const bad of outOfBounds(field, fields[name]).filter((v) =>
        refuses(rebuild({ ...fields, [name]: v })),
      ))
        cases.push({
          what: `with ${at(name)} ${short(bad)}`,
          body: rebuild({ ...fields, [name]: bad }),
          names: [at(name)],
        });
      if (fields[name] !== undefined)
        cases.push(
          ...bodyFieldCases(
            field,
            fields[name],
            at(name),
            (changed) => rebuild({ ...fields, [name]: changed }),
            refuses,
          ),
        );
    }
  }
  if (schema.type === 'array' && schema.items && Array.isArray(value) && value.length > 0) {
    const wrong = wrongType(schema.items);
    if (wrong !== undefined)
      cases.push({
        what: `with ${at('0')} of the wrong type (${JSON.stringify(wrong)})`,
        body: rebuild([wrong, ...value.slice(1)]),
        names: [`The ${at('0')} body field`],
      });
  }
  return cases;
}

/**
 * Values of the schema's type that its keywords may refuse: past a length or a bound, blank, a
 * fraction for an integer, a repeated or one too many list item. `example` is the example's value,
 * whose first item a list repeats. Only those the definition refuses become cases (`refused`).
 */
function outOfBounds(schema: Schema, example: unknown): unknown[] {
  const s = schema as Schema & { maxItems?: number; uniqueItems?: boolean };
  switch (s.type) {
    case 'string':
      return ['', ' ', '!', ...(s.maxLength === undefined ? [] : ['x'.repeat(s.maxLength + 1)])];
    case 'integer':
    case 'number':
      return [
        ...(s.minimum === undefined ? [] : [s.minimum - 1]),
        ...(s.maximum === undefined ? [] : [s.maximum + 1]),
        ...(s.type === 'integer' ? [1.5] : []),
      ];
    case 'array': {
      const first = Array.isArray(example) ? example[0] : undefined;
      return [
        ...(s.uniqueItems && first !== undefined ? [[first, first]] : []),
        ...(s.maxItems === undefined || s.items?.type !== 'string'
          ? []
          : [Array.from({ length: s.maxItems + 1 }, (_, i) => String(i + 1))]),
      ];
    }
    default:
      return [];
  }
}

/** A value for a test's name: long ones by their length. */
const short = (value: unknown) => {
  const text = JSON.stringify(value);
  if (Array.isArray(value) && text.length > 40) return `(a list of ${value.length})`;
  return typeof value === 'string' && value.length > 20 ? `(${value.length} characters)` : `(${text})`;
};

/** Bodies that are no object at all; `NO_BODY` is none. */
const NOT_OBJECTS: [string, unknown][] = [
  ['no body', NO_BODY],
  ['a list', ['x']],
  ['a string', 'x'],
  ['a number', 42],
  ['a boolean', true],
  ['null', null],
];

function bodyCases(op: Operation, valid: Input): Malformed[] {
  const schema = op.schemas.body as Schema | undefined;
  if (!schema) return [];
  return [
    ...NOT_OBJECTS.map(([what, body]) => ({
      what: `a body that is ${what}`,
      input: { ...valid, body },
      names: ['body'],
    })),
    ...bodyFieldCases(
      schema,
      valid.body,
      '',
      (body) => body,
      (body) => refused(op, { ...valid, body }),
    ).map(({ what, body, names }) => ({ what: `a body ${what}`, input: { ...valid, body }, names })),
  ];
}

/** Text values that break `schema`'s keywords, and a few any constraint or rule may refuse. */
function textCandidates(schema: Schema): string[] {
  const candidates = ['!', 'not-a-number', 'x y'];
  if (schema.type === 'integer' || schema.type === 'number') {
    if (schema.minimum !== undefined) candidates.push(String(schema.minimum - 1));
    if (schema.maximum !== undefined) candidates.push(String(schema.maximum + 1));
    if (schema.type === 'integer') candidates.push('1.5');
    // Not decimal text: the API reads query numbers in decimal only.
    candidates.push('0x10', '');
  }
  if (schema.type === 'string') {
    if (schema.maxLength !== undefined) candidates.push('x'.repeat(schema.maxLength + 1));
    if ((schema.minLength ?? 0) > 0) candidates.push('', ' ');
  }
  return [...new Set(candidates)];
}

/**
 * The query's and the path's malformations: each required query parameter left out, and each value
 * of `textCandidates` the definition refuses (its schema or its `check`). The account's path
 * parameter is left to the 404 cases: any id that is not one of the caller's accounts is 404,
 * malformed or not. A path parameter is never empty: that would be another route.
 */
function textCases(op: Operation, valid: Input): Malformed[] {
  const cases: Malformed[] = [];
  const query = op.schemas.querystring as Schema | undefined;
  for (const name of query?.required ?? [])
    cases.push({
      what: `a query without its required ${name}`,
      input: { ...valid, query: without(valid.query ?? {}, name) },
      names: [`The ${name} query parameter is required`],
    });
  for (const [name, schema] of Object.entries(query?.properties ?? {})) {
    for (const text of textCandidates(schema)) {
      const input = { ...valid, query: { ...valid.query, [name]: text } };
      if (refused(op, input))
        cases.push({ what: `?${name}=${short(text).slice(1, -1)}`, input, names: [name] });
    }
  }
  const params = op.schemas.params as Schema | undefined;
  for (const [name, schema] of Object.entries(params?.properties ?? {})) {
    if (accountPart(op) === 'params' && name === 'accountId') continue;
    for (const text of textCandidates(schema).filter((t) => t !== '')) {
      const input = { ...valid, params: { ...valid.params, [name]: text } };
      if (refused(op, input))
        cases.push({ what: `the path parameter ${name} ${short(text)}`, input, names: [name] });
    }
  }
  return cases;
}

// ---------------------------------------------------------------------------------------------------
// What a refused request must have left untouched

interface Untouched {
  platformRequests: number;
  jobs: Set<string>;
}

/** Every request the sandbox has seen, whoever sent it (`totals.requests` of /_sim/observations). */
async function platformRequests(): Promise<number> {
  const observed = (await (await fetch(`${stack.simUrl}/_sim/observations`)).json()) as {
    totals: { requests: number };
  };
  return observed.totals.requests;
}

/** The jobs in Redis: BullMQ's job hashes under the queue's job prefix. */
async function jobs(): Promise<Set<string>> {
  const { jobPrefix } = queueKeys(stack.prefix);
  const found = new Set<string>();
  for (const key of await scanKeys(stack.redis, stack.prefix)) {
    if (!key.startsWith(jobPrefix) || key.slice(jobPrefix.length).includes(':')) continue;
    if ((await stack.redis.type(key)) === 'hash' && (await stack.redis.hexists(key, 'data'))) found.add(key);
  }
  return found;
}

async function snapshot(): Promise<Untouched> {
  return { platformRequests: await platformRequests(), jobs: await jobs() };
}

/** The contract's error body: these five fields, and no other. */
function expectErrorShape(response: GatewayAnswer): void {
  expect(errorsOf(ErrorBodySchema, response.body)).toEqual([]);
  expect(Object.keys(response.body).sort()).toEqual(['code', 'error', 'message', 'requestId', 'statusCode']);
  expect(response.body.requestId).toMatch(/^req_[a-z0-9]+$/);
}

// ---------------------------------------------------------------------------------------------------
// The tests

/** How many cases of each kind were generated, checked at the end against the registry. */
const generated = { operations: 0, unauthorized: 0, notFound: 0, body: 0, text: 0 };

describe.each(allOperations.map((op) => [op.name, op] as const))('%s', (_name, op) => {
  generated.operations += 1;
  let before: Untouched;
  beforeEach(async () => {
    before = await snapshot();
  });
  afterEach(async () => {
    // A 4xx is answered before anything is queued or sent: the platform saw nothing, no job exists.
    const after = await snapshot();
    expect(after.platformRequests, 'requests the platform saw').toBe(before.platformRequests);
    expect(
      [...after.jobs].filter((job) => !before.jobs.has(job)),
      'new jobs',
    ).toEqual([]);
  });

  // 401 without a key and with a wrong one (and, for an account in the path, t1's account asked for
  // with t2's key, and an unknown one). The example's account, in the query, would be no tenant's.
  const common = baseline(op, '');
  if (accountPart(op) === 'query' && common.query) delete common.query.accountId;
  runCommonRouteTests(
    () => stack,
    {
      method: op.method,
      path: urlOf(op, common, true),
      ...(op.schemas.body ? { body: op.example.body } : {}),
    },
    () => accounts.t1,
  );
  generated.unauthorized += 2;

  if (accountPart(op) !== undefined) {
    it("404 NOT_FOUND for another tenant's account, asked for with t1's key", async () => {
      const response = await send(op, baseline(op, accounts.t2));
      expectNotFound(response, accounts.t2);
      expectErrorShape(response);
    });
    it('404 NOT_FOUND for an account id that is no tenant’s', async () => {
      const response = await send(op, baseline(op, UNKNOWN_ACCOUNT));
      expectNotFound(response, UNKNOWN_ACCOUNT);
      expectErrorShape(response);
    });
    generated.notFound += 2;
  }

  // Built with placeholders: the account is t1's by the time a case runs.
  const PLACEHOLDER = 'acct_t1';
  const withAccount = (input: Input): Input => {
    const part = accountPart(op);
    if (part === 'params' && input.params.accountId === PLACEHOLDER)
      return { ...input, params: { ...input.params, accountId: accounts.t1 } };
    if (part === 'query' && input.query?.accountId === PLACEHOLDER)
      return { ...input, query: { ...input.query, accountId: accounts.t1 } };
    return input;
  };
  const valid = baseline(op, PLACEHOLDER);
  const malformed = { body: bodyCases(op, valid), text: textCases(op, valid) };
  generated.body += malformed.body.length;
  generated.text += malformed.text.length;

  it('has a valid example to build the malformed requests on', () => {
    expect(refused(op, valid)).toBe(false);
  });

  if (op.schemas.querystring)
    it('has at least one malformed query derived from its query schema', () => {
      expect(malformed.text.some((c) => c.what.startsWith('?') || c.what.startsWith('a query'))).toBe(true);
    });

  for (const { what, input, names } of [...malformed.body, ...malformed.text]) {
    it(`400 BAD_REQUEST for ${what}`, async () => {
      expect(refused(op, input), 'the definition refuses it').toBe(true);
      const response = await send(op, withAccount(input));
      expectBadRequest(response, ...names);
      expectErrorShape(response);
    });
  }
});

describe('the registry', () => {
  // Collected above, so the name reports what a run covered: cases generated, by kind.
  it(`has every operation covered: ${JSON.stringify(generated)}`, () => {
    expect(generated.operations).toBe(allOperations.length);
  });
});
