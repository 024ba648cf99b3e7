import type { TObject } from 'typebox';
import { Value } from 'typebox/value';
import { describe, expect, it } from 'vitest';
import type { OperationInput, OperationSchemas } from '../src/define';
import { allOperations } from '../src/registry';

const PARTS = [
  ['params', 'params'],
  ['querystring', 'query'],
  ['body', 'body'],
] as const;

/** Every way `value` breaks `schema`, as "path message" lines: `[]` when it conforms. */
const errorsOf = (schema: TObject, value: unknown) =>
  [...Value.Errors(schema, value)].map((error) => `${error.instancePath} ${error.message}`);

describe.each(allOperations.map((op) => [op.name, op] as const))('the example of %s', (_name, op) => {
  it('has exactly the request parts the operation has', () => {
    for (const [schema, part] of PARTS)
      expect(op.example[part] === undefined, `${part}`).toBe(op.schemas[schema] === undefined);
  });

  it('validates against the schema of each part', () => {
    for (const [schema, part] of PARTS) {
      const partSchema = op.schemas[schema];
      if (partSchema) expect(errorsOf(partSchema, op.example[part]), part).toEqual([]);
    }
  });

  it('passes the rules beyond the schema (`check`)', () => {
    const input = {
      params: op.example.params,
      query: op.example.query,
      body: op.example.body,
    } as OperationInput<OperationSchemas>;
    expect(op.check?.(input)).toBeUndefined();
  });

  it('names an account as `/connect` answers one (`acct_` and 22 base62 characters)', () => {
    const named = op.example.params?.accountId ?? op.example.query?.accountId;
    if (op.session === 'path') expect(named).toBeDefined();
    if (named !== undefined) expect(named).toMatch(/^acct_[0-9A-Za-z]{22}$/);
  });

  it('reads the same from a query string and a path as it is written (numbers are sent as text)', () => {
    for (const [schema, part] of [PARTS[0], PARTS[1]]) {
      const partSchema = op.schemas[schema];
      const value = op.example[part];
      if (!partSchema || !value) continue;
      const asText = Object.fromEntries(Object.entries(value).map(([key, v]) => [key, String(v)]));
      expect(Value.Convert(partSchema, asText), part).toEqual(value);
    }
  });
});
