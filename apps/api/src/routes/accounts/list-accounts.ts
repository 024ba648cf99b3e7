import { accountSummary } from '@cg/store';
import { Type } from 'typebox';
import { reachable } from '../../scope';
import type { ApiRoute } from '../route';
import { answers, ok, routeSchema } from '../schema';

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

/** `GET /accounts`: the tenant's connected accounts, from our own store (no platform call). */
export const listAccounts: ApiRoute = {
  name: 'list-accounts',
  method: 'GET',
  url: '/accounts',
  access: 'read',
  schema: routeSchema('The connected accounts of the caller’s tenant', 'accounts', {
    response: answers(200, Type.Object({ accounts: Type.Array(AccountSummary) })),
  }),
  async handler(request, _reply, { context }) {
    const accounts = reachable(
      request,
      await context.store.accounts.list(request.tenantId),
      (a) => a.accountId,
    );
    return ok(200, 'Success', { accounts: accounts.map(accountSummary) });
  },
};
