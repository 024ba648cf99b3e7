import { Type } from 'typebox';
import { ConnectedData, connectData, loginLane } from '../common/connect-result';
import { CountryCode, NonEmpty } from '../common/schemas';
import { defineOperation } from '../define';

export const verifyTwofa = defineOperation({
  name: 'verify-2fa',
  method: 'POST',
  path: '/verify-2fa',
  summary: 'Complete a connection with the second factor',
  tags: ['accounts'],
  session: 'none',
  lane: loginLane,
  country: ({ body }) => body.countryCode,
  write: true,
  sealInput: true,
  sealResult: true,
  successStatus: 201,
  schemas: {
    body: Type.Object({
      username: NonEmpty(),
      password: NonEmpty(),
      twoFactorToken: NonEmpty('twofa_token from the /connect response'),
      twoFactorCode: Type.String({ minLength: 1, maxLength: 32 }),
      name: NonEmpty(),
      countryCode: CountryCode,
    }),
    data: ConnectedData,
  },
  run: async ({ body }, { connector }) => {
    const data = connectData(await connector.verifyTwofa(body));
    // The platform never asks for a second factor twice in a row; if it did, this is its bug.
    if (!('account_id' in data)) throw new Error('platform asked for a second factor after a verified code');
    return data;
  },
});
