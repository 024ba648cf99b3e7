import { GatewayError, Upstream } from '@cg/contract';
import { PlatformError } from '@cg/platform-client';
import { type Static, Type } from 'typebox';
import { coerce } from '../common/coerce';
import { isRefusal } from '../common/platform-refusal';
import { f, type RecordValue, record } from '../common/record';
import { AccountParams, accountExample, NonBlank } from '../common/schemas';
import { defineOperation, type OperationContext, upstreamData } from '../define';

const { obj, str } = coerce;

/** Payout method as the deletion answers it (`status` 3 = deleted). */
export const PayoutMethod = record({
  id: f.id(),
  accountId: f.id(),
  providerId: f.id(),
  type: f.number(),
  flags: f.number(),
  status: f.number('3 means deleted'),
  metadata: f.jsonText('JSON text with the payout details'),
  version: f.number(),
  // Unix ms upstream already (docs/upstream-decisions.md).
  deletedAt: f.timestamp(),
});
export type PayoutMethod = RecordValue<typeof PayoutMethod>;

const Twofa = Type.Object({
  code: NonBlank('the current two-factor code', { maxLength: 32 }),
  token: Type.String({
    maxLength: 200,
    description: 'token of the platform’s one-time-password step, if it gave one; may be empty',
  }),
});

export const payoutDelete = defineOperation({
  name: 'payout-delete',
  method: 'DELETE',
  path: '/:accountId/payout/delete',
  summary: 'Delete a payout method (irreversible)',
  tags: ['payouts'],
  session: 'path',
  write: true,
  // The input carries a two-factor code; the result, the method's personal data (holder, bank,
  // email), which the job keeps for its retention and the queue dashboard would show.
  sealInput: true,
  sealResult: true,
  successStatus: 200,
  notFoundMessage:
    'payout method not found: no payout method with this id on the account, or it is already deleted',
  schemas: {
    params: AccountParams,
    body: Type.Object({
      payoutMethodId: NonBlank('id of the payout method', { maxLength: 64 }),
      twofa: Type.Optional(Twofa),
    }),
    data: Upstream(PayoutMethod.schema),
  },
  example: {
    params: accountExample,
    body: { payoutMethodId: '533370215568769301', twofa: { code: '424242', token: '' } },
  },
  run: async ({ body }, { call }) => {
    const twofa = body.twofa === undefined ? undefined : await stepUp(body.twofa, call);
    const method = await call('payoutMethodDelete', {
      body: { payoutMethodId: body.payoutMethodId, ...(twofa === undefined ? {} : { twofa }) },
    });
    return upstreamData(PayoutMethod.from(method));
  },
});

/**
 * The platform's step-up second factor: the code is verified first (`/twofa/session/verify`), and the
 * token that answers is what the deletion accepts as `twofa.token`. The gateway has no route of its own
 * for that step, so it takes it here with the caller's code (and token, when the caller has one). An
 * account without a second factor is refused the step-up (403); it needs no `twofa`, so none is sent.
 */
async function stepUp(
  twofa: Static<typeof Twofa>,
  call: OperationContext['call'],
): Promise<{ code: string; token: string } | undefined> {
  const code = twofa.code.trim();
  const unconfirmed = () =>
    new GatewayError(
      'UPSTREAM_ERROR',
      'the platform did not confirm the two-factor code; nothing was deleted',
    );
  let verified: unknown;
  try {
    verified = await call('twofaSessionVerify', {
      body: { code, ...(twofa.token.trim() === '' ? {} : { token: twofa.token }) },
    });
  } catch (error) {
    if (isRefusal(error)) return undefined;
    // An answer that is not the token's object (null, `true`): the deletion was not sent either.
    if (error instanceof PlatformError && error.kind === 'bad_response') throw unconfirmed();
    throw error;
  }
  const token = str(obj(verified).token);
  if (token === '') throw unconfirmed();
  return { code, token };
}
