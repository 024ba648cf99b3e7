import { Upstream } from '@cg/contract';
import { type Static, Type } from 'typebox';
import { coerce } from '../common/coerce';
import { AccountParams } from '../common/schemas';
import { defineOperation, upstreamData } from '../define';

/** The platform refuses labels longer than this (400 code 10). */
const MAX_NAME_CHARS = 100;

/** List: the contract's record for a created list. */
export const List = Type.Object({
  id: Type.String(),
  accountId: Type.String(),
  type: Type.Number(),
  label: Type.String(),
});
export type List = Static<typeof List>;

export function toList(value: unknown): List {
  const raw = coerce.obj(value);
  return {
    id: coerce.str(raw.id),
    accountId: coerce.str(raw.accountId),
    type: coerce.num(raw.type),
    label: coerce.str(raw.label),
  };
}

export const listsCreate = defineOperation({
  name: 'lists-create',
  method: 'POST',
  path: '/:accountId/lists/create',
  summary: 'Create a fan list',
  tags: ['lists'],
  session: 'path',
  write: true,
  successStatus: 201,
  schemas: {
    params: AccountParams,
    body: Type.Object({
      name: Type.String({ minLength: 1, maxLength: MAX_NAME_CHARS, description: 'name (label) of the list' }),
    }),
    data: Upstream(List),
  },
  // The platform trims the label, so a blank name would reach it as an empty one.
  check: ({ body }) => (body.name.trim() === '' ? 'The name body field must not be blank' : undefined),
  run: async ({ body }, { call }) => {
    const created = await call('listCreate', { body: { label: body.name.trim() } });
    return upstreamData(toList(created));
  },
});
