import { Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { f, type RecordValue, record } from '../common/record';
import { AccountParams, accountExample, NonBlank } from '../common/schemas';
import { accountCreate, defineOperation, upstreamData } from '../define';

/** The platform refuses labels longer than this (400 code 10). */
const MAX_NAME_CHARS = 100;

/** List: the contract's record for a created list. */
export const List = record({ id: f.id(), accountId: f.id(), type: f.number(), label: f.string() });
export type List = RecordValue<typeof List>;

export const listsCreate = defineOperation({
  name: 'lists-create',
  method: 'POST',
  path: '/:accountId/lists/create',
  summary: 'Create a fan list',
  tags: ['lists'],
  ...accountCreate,
  schemas: {
    params: AccountParams,
    body: Type.Object({
      // The platform trims the label, so a blank name would reach it as an empty one.
      name: NonBlank('name (label) of the list', { maxLength: MAX_NAME_CHARS }),
    }),
    data: Upstream(List.schema),
  },
  example: { params: accountExample, body: { name: 'VIP fans' } },
  run: async ({ body }, { call }) => {
    const created = await call('listCreate', { body: { label: body.name.trim() } });
    return upstreamData(List.from(created));
  },
});
