import { Type } from 'typebox';
import { ConnectedData, connectData, loginLane } from '../common/connect-result';
import { CountryCode, NonBlank, NonEmpty } from '../common/schemas';
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
  connects: true,
  sealInput: true,
  sealResult: true,
  successStatus: 201,
  schemas: {
    body: Type.Object({
      username: NonBlank(),
      password: NonEmpty(),
      twoFactorToken: NonEmpty('twofa_token from the /connect response'),
      twoFactorCode: NonBlank('the code from the authenticator app, e-mail or phone', { maxLength: 32 }),
      name: NonEmpty(),
      countryCode: CountryCode,
    }),
    data: ConnectedData,
  },
  example: {
    body: {
      username: 'creator_2fa',
      password: 'sandbox-password',
      twoFactorToken: 'tfa_Vb3kR9qX2mL7cN4tP8sW1z',
      twoFactorCode: '424242',
      name: 'Demo creator (2FA)',
      countryCode: 'US',
    },
  },
  run: async ({ body }, { connector }) => {
    const data = connectData(await connector.verifyTwofa(body));
    // The platform never asks for a second factor twice in a row; if it did, this is its bug.
    if (!('account_id' in data)) throw new Error('platform asked for a second factor after a verified code');
    return data;
  },
});
