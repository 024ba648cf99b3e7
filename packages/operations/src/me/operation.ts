import { Upstream } from '@cg/contract';
import { PlatformProfile } from '../common/profile';
import { AccountParams, accountExample } from '../common/schemas';
import { accountRead, defineOperation, upstreamData } from '../define';

export const me = defineOperation({
  name: 'me',
  method: 'GET',
  path: '/:accountId/me',
  summary: 'The connected account’s own profile',
  tags: ['profiles'],
  ...accountRead,
  schemas: {
    params: AccountParams,
    data: Upstream(PlatformProfile.schema),
  },
  example: { params: accountExample },
  run: async (_input, { call }) => {
    const me = await call<{ account?: unknown }>('accountMe');
    return upstreamData(PlatformProfile.from(me?.account));
  },
});
