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
 * - 400 naming the field for text no field takes, in every text field of the body and the query
 *   and every path id: C0 control characters and unpaired bidirectional controls, and in a path
 *   id also a traversal (`..%2F..%2Faccounts`), NUL (`%00`) and letters no id has (`ü😀`); 404 for
 *   those in the account's id, which is the gateway's own;
 *
 * and in every one of these cases nothing reached the platform (the sandbox's request count) and
 * nothing was queued (no new job in Redis).
 */
import { ErrorBodySchema } from '@cg/contract';
import { allOperations, isTextFormat } from '@cg/operations';
import type { TObject, TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  errorsOf,
  expectBadRequest,
  expectError,
  expectNotFound,
  type GatewayAnswer,
} from '../support/assert';
import { connectAccount, runCommonRouteTests } from '../support/common';
import {
  accountPart,
  baseline,
  type Input,
  NO_BODY,
  type Operation,
  sendOperation,
  snapshot,
  type Untouched,
  urlOf,
  type Values,
} from '../support/operations';
import { startStack, type TestStack } from '../support/stack';

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

const send = (op: Operation, input: Input, key = stack.keys.t1) => sendOperation(stack, op, input, key);

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
  format?: string;
  anyOf?: Schema[];
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
// Text no field takes

/** Text no text field takes (NUL, ESC, U+202E alone, U+2069 alone), with what the 400 says of it. */
const HOSTILE_TEXT: { value: string; rule: string }[] = [
  { value: 'a\u0000b', rule: 'must not contain control characters' },
  { value: 'a\u001bb', rule: 'must not contain control characters' },
  { value: 'a\u202eb', rule: 'has an unpaired bidirectional control' },
  { value: 'a\u2069b', rule: 'has an unpaired bidirectional control' },
];

/**
 * Path values no path id takes, as the path parameter reads them: `..%2F..%2Faccounts` (a
 * traversal), `%00` (NUL) and `%C3%BC%F0%9F%98%80` (`ü😀`, letters no id has).
 */
const HOSTILE_PATH = ['../../accounts', '\u0000', 'ü😀'];

/** Whether a value of `schema` may be a string: a string, or a union with one. */
const takesText = (schema: Schema): boolean =>
  schema.type === 'string' || (schema.anyOf ?? []).some(takesText);

/** Whether `schema` is a text field's (a text format), whose 400 says why (others': their pattern). */
const isTextField = (schema: Schema): boolean =>
  isTextFormat(schema.format) || (schema.anyOf ?? []).some(isTextField);

/** Whether `{}` is a value of `schema`: an object (or a union with one) with no required field. */
const canBeEmpty = (schema: Schema): boolean =>
  (schema.anyOf ?? [schema]).some(
    (member) => member.type === 'object' && (member.required ?? []).length === 0,
  );

/** A field that takes text, at `path`; `put` makes the whole body with `value` there. */
interface TextField {
  path: string;
  schema: Schema;
  put: (value: string) => unknown;
}

/**
 * The body's text fields, down from `value` (the example's, at `path`): each field of an object
 * that takes a string, set whether or not the example sends it, the first item of each list of
 * strings, and the same inside the objects (and the first object of each list) the example fills in
 * or that may be empty.
 */
function bodyTextFields(
  schema: Schema,
  value: unknown,
  path: string,
  rebuild: (changed: unknown) => unknown,
) {
  const found: TextField[] = [];
  const at = (name: string) => (path === '' ? name : `${path}.${name}`);
  const object = (schema.anyOf ?? [schema]).find((member) => member.type === 'object');
  if (object && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const fields = value as Values;
    for (const [name, field] of Object.entries(object.properties ?? {})) {
      const put = (changed: unknown) => rebuild({ ...fields, [name]: changed });
      if (takesText(field)) found.push({ path: at(name), schema: field, put });
      const list = field.type === 'array' ? field : undefined;
      const items = Array.isArray(fields[name]) ? (fields[name] as unknown[]) : [];
      if (list?.items && takesText(list.items))
        found.push({
          path: at(`${name}.0`),
          schema: list.items,
          put: (text) => put([text, ...items.slice(1)]),
        });
      const inner = fields[name] ?? (canBeEmpty(field) ? {} : undefined);
      if (inner !== undefined) found.push(...bodyTextFields(field, inner, at(name), put));
    }
  }
  const list = (schema.anyOf ?? [schema]).find((member) => member.type === 'array');
  if (list?.items && Array.isArray(value) && value.length > 0)
    found.push(
      ...bodyTextFields(list.items, value[0], at('0'), (changed) => rebuild([changed, ...value.slice(1)])),
    );
  return found;
}

/** One field's hostile values, sent one by one: each a 400 naming the field (and the rule, for text). */
interface HostileCase {
  what: string;
  inputs: { value: string; input: Input; names: string[] }[];
}

/** What the 400 of `value` in `schema` must say: the field, and for a text field the rule. */
const hostileNames = (schema: Schema, field: string, value: string): string[] => {
  const rule = HOSTILE_TEXT.find((hostile) => hostile.value === value)?.rule;
  return isTextField(schema) && rule ? [field, rule] : [field];
};

/**
 * The operation's text fields (body and query) with each of `HOSTILE_TEXT`, and its path ids with
 * those and each of `HOSTILE_PATH`. The account's id is the gateway's own: `accountCases`.
 */
function hostileCases(op: Operation, valid: Input): HostileCase[] {
  const cases: HostileCase[] = [];
  const texts = HOSTILE_TEXT.map((hostile) => hostile.value);
  const body = op.schemas.body as Schema | undefined;
  for (const field of body ? bodyTextFields(body, valid.body, '', (changed) => changed) : [])
    cases.push({
      what: `control characters and unpaired bidirectional controls in the body field ${field.path}`,
      inputs: texts.map((value) => ({
        value,
        input: { ...valid, body: field.put(value) },
        names: hostileNames(field.schema, field.path, value),
      })),
    });
  const query = op.schemas.querystring as Schema | undefined;
  for (const [name, schema] of Object.entries(query?.properties ?? {})) {
    if (!takesText(schema) || (accountPart(op) === 'query' && name === 'accountId')) continue;
    cases.push({
      what: `control characters and unpaired bidirectional controls in the query parameter ${name}`,
      inputs: texts.map((value) => ({
        value,
        input: { ...valid, query: { ...valid.query, [name]: value } },
        names: hostileNames(schema, name, value),
      })),
    });
  }
  const params = op.schemas.params as Schema | undefined;
  for (const [name, schema] of Object.entries(params?.properties ?? {})) {
    if (accountPart(op) === 'params' && name === 'accountId') continue;
    cases.push({
      what: `control characters, unpaired bidirectional controls, a path and letters no id has in the path parameter ${name}`,
      inputs: [...texts, ...HOSTILE_PATH].map((value) => ({
        value,
        input: { ...valid, params: { ...valid.params, [name]: value } },
        names: hostileNames(schema, name, value),
      })),
    });
  }
  return cases;
}

/** The account's id with each of `HOSTILE_PATH`, where the operation names one: each a 404. */
function accountCases(op: Operation, valid: Input): Input[] {
  const part = accountPart(op);
  if (part === 'params')
    return HOSTILE_PATH.map((id) => ({ ...valid, params: { ...valid.params, accountId: id } }));
  if (part === 'query')
    return HOSTILE_PATH.map((id) => ({ ...valid, query: { ...valid.query, accountId: id } }));
  return [];
}

// ---------------------------------------------------------------------------------------------------
// What a refused request must have left untouched

/** The contract's error body: these five fields, and no other. */
function expectErrorShape(response: GatewayAnswer): void {
  expect(errorsOf(ErrorBodySchema, response.body)).toEqual([]);
  expect(Object.keys(response.body).sort()).toEqual(['code', 'error', 'message', 'requestId', 'statusCode']);
  expect(response.body.requestId).toMatch(/^req_[a-z0-9]+$/);
}

// ---------------------------------------------------------------------------------------------------
// The tests

/** How many cases of each kind were generated, checked at the end against the registry. */
const generated = { operations: 0, unauthorized: 0, notFound: 0, body: 0, text: 0, hostile: 0 };

describe.each(allOperations.map((op) => [op.name, op] as const))('%s', (_name, op) => {
  generated.operations += 1;
  let before: Untouched;
  beforeEach(async () => {
    before = await snapshot(stack);
  });
  afterEach(async () => {
    // A 4xx is answered before anything is queued or sent: the platform saw nothing, no job exists.
    const after = await snapshot(stack);
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

  // One test per field, its hostile values one after another: a snapshot per value would double
  // the file's run time.
  const hostile = hostileCases(op, valid);
  generated.hostile += hostile.reduce((sum, { inputs }) => sum + inputs.length, 0);
  for (const { what, inputs } of hostile) {
    it(`400 BAD_REQUEST for ${what}`, async () => {
      for (const { value, input, names } of inputs) {
        const response = await send(op, withAccount(input));
        expect(response.status, JSON.stringify(value)).toBe(400);
        expectBadRequest(response, ...names);
        expectErrorShape(response);
        expect(refused(op, input), `the definition refuses ${JSON.stringify(value)}`).toBe(true);
      }
    });
  }

  const foreignAccounts = accountCases(op, valid);
  if (foreignAccounts.length > 0)
    it('404 NOT_FOUND for an account id with a path, NUL or letters no id has, sending nothing', async () => {
      for (const input of foreignAccounts) {
        const response = await send(op, input);
        expectError(response, 404, 'NOT_FOUND');
        expectErrorShape(response);
      }
    });
});

describe('the registry', () => {
  // Collected above, so the name reports what a run covered: cases generated, by kind.
  it(`has every operation covered: ${JSON.stringify(generated)}`, () => {
    expect(generated.operations).toBe(allOperations.length);
  });
});
