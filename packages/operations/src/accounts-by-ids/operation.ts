import { Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { PlatformProfile } from '../common/profile';
import { EXAMPLE_ACCOUNT_ID } from '../common/schemas';
import { defineOperation, upstreamData } from '../define';

/** The platform answers at most this many ids per call; longer lists are split. */
const UPSTREAM_BATCH = 100;
const MAX_IDS = 1000;

export const accountsByIds = defineOperation({
  name: 'accounts-by-ids',
  method: 'GET',
  path: '/accounts/by-ids',
  summary: 'Look up platform profiles by platform account ids',
  tags: ['profiles'],
  session: 'any',
  write: false,
  successStatus: 200,
  schemas: {
    querystring: Type.Object({
      ids: Type.String({
        minLength: 1,
        description: 'comma-separated platform account ids (not service account ids)',
      }),
      accountId: Type.Optional(
        Type.String({
          // The bounds of the `accountId` path parameter (AccountParams).
          minLength: 1,
          maxLength: 100,
          description: 'connected account whose session makes the lookup; default: any of the tenant’s',
        }),
      ),
    }),
    data: Upstream(Type.Array(PlatformProfile.schema)),
  },
  example: {
    query: { ids: '810009378009645059,803936732755001347', accountId: EXAMPLE_ACCOUNT_ID },
  },
  check: ({ query }) => {
    const ids = parseIds(query.ids);
    if (ids.length === 0) return 'The ids query parameter is required: comma-separated platform account ids';
    if (ids.some((id) => !/^\d{1,30}$/.test(id)))
      return 'ids must be comma-separated numeric platform account ids';
    if (ids.length > MAX_IDS) return `ids may name at most ${MAX_IDS} accounts`;
    return undefined;
  },
  run: async ({ query }, { call }) => {
    const ids = parseIds(query.ids);
    const profiles = [];
    for (let start = 0; start < ids.length; start += UPSTREAM_BATCH) {
      const batch = ids.slice(start, start + UPSTREAM_BATCH);
      const found = await call<unknown[]>('accountsByIds', { query: { ids: batch.join(',') } });
      profiles.push(...(Array.isArray(found) ? found : []).map(PlatformProfile.from));
    }
    return upstreamData(profiles);
  },
});

export function parseIds(ids: string): string[] {
  return [
    ...new Set(
      ids
        .split(',')
        .map((id) => id.trim())
        .filter(Boolean),
    ),
  ];
}
