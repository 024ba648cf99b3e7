import { GatewayError, Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { PlatformProfile } from '../common/profile';
import { defineOperation, upstreamData } from '../define';

export const profileByUsername = defineOperation({
  name: 'profile-by-username',
  method: 'GET',
  path: '/search/:username',
  summary: 'Look up one platform profile by its username (exact, any case)',
  tags: ['profiles'],
  // Any connected account of the caller's makes the lookup; none: 409 ACCOUNT_REQUIRED.
  session: 'any',
  write: false,
  successStatus: 200,
  notFoundMessage: 'no profile has that username',
  schemas: {
    params: Type.Object({
      // The platform's username characters. The upstream notes state no rule and the sandbox looks up
      // any text; its usernames are letters, digits and `_`, and `.` and `-` are taken too. Anything
      // else (a slash, a control character, `ü`) names no profile and never reaches the platform.
      username: Type.String({
        pattern: '^[A-Za-z0-9_.-]{1,64}$',
        description: 'a platform username: letters, digits, _ . -',
      }),
    }),
    data: Upstream(PlatformProfile.schema),
  },
  example: { params: { username: 'creator_demo' } },
  run: async ({ params }, { call }) => {
    const found = await call<unknown[]>('accountsByUsernames', { query: { usernames: params.username } });
    const wanted = params.username.toLowerCase();
    const profile = (Array.isArray(found) ? found : [])
      .map(PlatformProfile.from)
      .find((p) => p.username.toLowerCase() === wanted);
    if (!profile) throw new GatewayError('NOT_FOUND', `no profile has the username ${params.username}`);
    return upstreamData(profile);
  },
});
