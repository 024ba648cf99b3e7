import { Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { AutomatedMessage } from '../common/automated-message';
import { coerce } from '../common/coerce';
import { AccountParams, accountExample } from '../common/schemas';
import { accountRead, defineOperation, upstreamData } from '../define';

export const automatedMessagesList = defineOperation({
  name: 'automated-messages-list',
  method: 'GET',
  path: '/:accountId/automated-messages',
  summary: 'Every automated-message rule: its trigger, delay, cooldown and message',
  tags: ['messages'],
  ...accountRead,
  schemas: {
    params: AccountParams,
    data: Upstream(Type.Array(AutomatedMessage.schema)),
  },
  example: { params: accountExample },
  // The platform answers every rule in one bare array, so there is no paging here.
  run: async (_input, { call }) =>
    upstreamData(coerce.arr(await call('automatedMessages')).map(AutomatedMessage.from)),
});
