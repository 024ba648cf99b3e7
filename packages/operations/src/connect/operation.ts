import { Type } from 'typebox';
import { ConnectedData, connectData, loginLane, TwofaNeededData } from '../common/connect-result';
import { CountryCode, NonBlank, NonEmpty } from '../common/schemas';
import { defineOperation } from '../define';

export const connect = defineOperation({
  name: 'connect',
  method: 'POST',
  path: '/connect',
  summary: 'Connect a platform account (may ask for a second factor)',
  tags: ['accounts'],
  session: 'none',
  lane: loginLane,
  country: ({ body }) => body.countryCode,
  // Logging in changes nothing on the account, so a login whose answer was lost may be repeated.
  write: false,
  connects: true,
  sealInput: true,
  sealResult: true,
  successStatus: 201,
  schemas: {
    body: Type.Object({
      username: NonBlank('email or username of the platform account'),
      password: NonEmpty('platform account password'),
      name: NonEmpty('display name in the caller’s dashboard'),
      countryCode: CountryCode,
    }),
    data: Type.Union([ConnectedData, TwofaNeededData]),
  },
  example: {
    body: { username: 'creator_demo', password: 'sandbox-password', name: 'Demo creator', countryCode: 'US' },
  },
  run: async ({ body }, { connector }) => connectData(await connector.connect(body)),
});
