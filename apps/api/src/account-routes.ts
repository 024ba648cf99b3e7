import { EnvelopeSchema, ErrorBodySchema, envelope, GatewayError } from '@cg/contract';
import { accountEvent } from '@cg/events';
import { laneOfAccount } from '@cg/queue';
import { accountSummary } from '@cg/store';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { ApiContext } from './context';
import { type ConnectedAccounts, connectedKey } from './operation-routes';

const AccountSummary = Type.Object({
  accountId: Type.String({ description: 'service account id' }),
  name: Type.String(),
  country: Type.String(),
  username: Type.String({ description: 'platform username' }),
  platformAccountId: Type.String(),
  status: Type.Union([Type.Literal('connected'), Type.Literal('reauth_required')]),
  egress: Type.String({
    description: 'host:port of the proxy its platform calls leave through, or "direct"',
  }),
  connectedAt: Type.Number({ description: 'Unix ms' }),
});

/** The tenant's connected accounts. These read and write our own store only: no platform call. */
export function registerAccountRoutes(
  app: FastifyInstance,
  { store, queue, events }: ApiContext,
  connected: ConnectedAccounts,
): void {
  app.get(
    '/accounts',
    {
      schema: {
        operationId: 'list-accounts',
        summary: 'The connected accounts of the caller’s tenant',
        tags: ['accounts'],
        security: [{ apiKey: [] }],
        response: {
          200: EnvelopeSchema(Type.Object({ accounts: Type.Array(AccountSummary) })),
          '4xx': ErrorBodySchema,
          '5xx': ErrorBodySchema,
        },
      },
    },
    async (request) => {
      const accounts = await store.accounts.list(request.tenantId);
      return envelope({
        statusCode: 200,
        message: 'Success',
        data: { accounts: accounts.map(accountSummary) },
      });
    },
  );

  app.delete(
    '/accounts/:accountId',
    {
      schema: {
        operationId: 'disconnect-account',
        summary: 'Disconnect an account: its stored credentials and session are destroyed',
        tags: ['accounts'],
        security: [{ apiKey: [] }],
        params: Type.Object({ accountId: Type.String() }),
        response: {
          200: EnvelopeSchema(Type.Object({ account_id: Type.String(), disconnected: Type.Boolean() })),
          '4xx': ErrorBodySchema,
          '5xx': ErrorBodySchema,
        },
      },
    },
    async (request) => {
      const { accountId } = request.params as { accountId: string };
      // Not trusted from here on, also when another process removed it first (404 below).
      connected.delete(connectedKey(request.tenantId, accountId));
      const connectJobs = await store.accounts.connectJobs(request.tenantId, accountId);
      const removed = await store.accounts.remove(request.tenantId, accountId);
      if (!removed) throw new GatewayError('NOT_FOUND', `account ${accountId} not found`);
      await queue.lanes.forget(laneOfAccount(removed));
      // One disconnection per connection of the account: its record's time tells them apart.
      await events.publishEvent(
        request.tenantId,
        accountEvent('accounts.disconnected', accountSummary(removed), removed.updatedAt),
      );
      // The jobs that connected it hold its credentials (sealed input) and session (sealed result,
      // readable at /jobs/{id} until their retention ends): they go with it. The account is gone
      // already, so one that cannot be removed (still running, or Redis failing) is logged, not a 5xx.
      const kept = await queue.removeJobs(connectJobs);
      if (kept.length > 0)
        request.log.warn({ accountId, jobs: kept }, 'connect jobs of a disconnected account kept');
      return envelope({
        statusCode: 200,
        message: 'Account disconnected',
        data: { account_id: accountId, disconnected: true },
      });
    },
  );
}
