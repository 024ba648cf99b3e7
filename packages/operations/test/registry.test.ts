import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { defineOperation } from '../src/define';
import { allOperations, assertRegistry } from '../src/registry';

describe('assertRegistry', () => {
  it('passes the registry', () => {
    expect(() => assertRegistry()).not.toThrow();
  });

  it('refuses a query number without a maximum, which coerced text could make Infinity', () => {
    const unbounded = defineOperation({
      ...allOperations[0]!,
      name: 'unbounded',
      path: '/unbounded',
      schemas: {
        ...allOperations[0]!.schemas,
        querystring: Type.Object({ page: Type.Integer({ minimum: 0 }) }),
      },
    } as never);
    expect(() => assertRegistry([...allOperations, unbounded as never])).toThrow(/page needs a maximum/);
  });
});
