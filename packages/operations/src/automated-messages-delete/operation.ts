import { Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { AutomatedMessage } from '../common/automated-message';
import { AccountParams, EXAMPLE_ACCOUNT_ID, PlatformId } from '../common/schemas';
import { accountUpdate, defineOperation, upstreamData } from '../define';

export const automatedMessagesDelete = defineOperation({
  name: 'automated-messages-delete',
  method: 'DELETE',
  path: '/:accountId/automated-messages/:automatedMessageId',
  summary: 'Delete an automated-message rule',
  tags: ['messages'],
  ...accountUpdate,
  // A repeat after an ambiguous failure answers this too: the first delete took effect.
  notFoundMessage: 'unknown or already deleted automated message',
  schemas: {
    params: Type.Object({
      ...AccountParams.properties,
      automatedMessageId: PlatformId('id of the automated-message rule'),
    }),
    data: Upstream(AutomatedMessage.schema),
  },
  example: { params: { accountId: EXAMPLE_ACCOUNT_ID, automatedMessageId: '821447095309238316' } },
  // The platform answers the rule it deleted: one call, and the record is the platform's last word.
  run: async ({ params }, { call }) => {
    const deleted = await call('automatedMessageDelete', { body: { id: params.automatedMessageId } });
    return upstreamData(AutomatedMessage.from(deleted));
  },
});
