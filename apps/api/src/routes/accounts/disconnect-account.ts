import { GatewayError } from '@cg/contract';
import { accountEvent } from '@cg/events';
import { laneOfAccount } from '@cg/queue';
import { accountSummary } from '@cg/store';
import { Type } from 'typebox';
import { namedAccountId } from '../../scope';
import { connectedKey } from '../../submit';
import type { ApiRoute } from '../route';
import { answers, ok, routeSchema } from '../schema';

/**
 * `DELETE /accounts/{accountId}`: the account leaves our store with its credentials, its session and
 * the jobs that connected it (no platform call); `accounts.disconnected` tells it.
 */
export const disconnectAccount: ApiRoute = {
  name: 'disconnect-account',
  method: 'DELETE',
  url: '/accounts/:accountId',
  access: 'admin',
  schema: routeSchema('Disconnect an account: its stored credentials and session are destroyed', 'accounts', {
    params: Type.Object({ accountId: Type.String() }),
    response: answers(200, Type.Object({ account_id: Type.String(), disconnected: Type.Boolean() })),
  }),
  async handler(request, _reply, { context: { store, queue, events }, connected }) {
    const { accountId: named } = request.params as { accountId: string };
    const notFound = new GatewayError('NOT_FOUND', `account ${named} not found`);
    // Its service account id, also when the path holds its platform account id.
    const accountId = await namedAccountId(request, store, named);
    const connectJobs = await store.accounts.connectJobs(request.tenantId, accountId);
    const removed = await store.accounts.remove(request.tenantId, accountId);
    // Not trusted from here on, under either id, also when another process removed it first.
    for (const id of [accountId, named, removed?.platformAccountId ?? named])
      connected.delete(connectedKey(request.tenantId, id));
    if (!removed) throw notFound;
    await queue.lanes.forget(laneOfAccount(removed));
    // One disconnection per connection of the account: its record's time tells them apart.
    await events.publishEvent(request.tenantId, {
      ...accountEvent('accounts.disconnected', accountSummary(removed), removed.updatedAt),
      keyId: request.apiKey.keyId,
    });
    // The jobs that connected it hold its credentials (sealed input) and session (sealed result,
    // readable at /jobs/{id} until their retention ends): they go with it. The account is gone
    // already, so one that cannot be removed (still running, or Redis failing) is logged, not a 5xx.
    const kept = await queue.removeJobs(connectJobs);
    if (kept.length > 0)
      request.log.warn({ accountId, jobs: kept }, 'connect jobs of a disconnected account kept');
    return ok(200, 'Account disconnected', { account_id: accountId, disconnected: true });
  },
};
