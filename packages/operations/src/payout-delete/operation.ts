import { GatewayError, Upstream } from '@cg/contract';
import { PlatformError } from '@cg/platform-client';
import { type Static, Type } from 'typebox';
import { coerce, jsonText } from '../common/coerce';
import { isRefusal } from '../common/platform-refusal';
import { AccountParams } from '../common/schemas';
import { defineOperation, type OperationContext, upstreamData } from '../define';

const { obj, str, num } = coerce;

/** Payout method as the deletion answers it (`status` 3 = deleted). */
export const PayoutMethod = Type.Object({
  id: Type.String(),
  accountId: Type.String(),
  providerId: Type.String(),
  type: Type.Number(),
  flags: Type.Number(),
  status: Type.Number({ description: '3 means deleted' }),
  metadata: Type.String({ description: 'JSON text with the payout details' }),
  version: Type.Number(),
  deletedAt: Type.Number({ description: 'Unix ms' }),
});
export type PayoutMethod = Static<typeof PayoutMethod>;

const Twofa = Type.Object({
  code: Type.String({ minLength: 1, maxLength: 32, description: 'the current two-factor code' }),
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
      payoutMethodId: Type.String({ minLength: 1, maxLength: 64, description: 'id of the payout method' }),
      twofa: Type.Optional(Twofa),
    }),
    data: Upstream(PayoutMethod),
  },
  check: ({ body }) => {
    if (body.payoutMethodId.trim() === '') return 'payoutMethodId must not be blank';
    if (body.twofa !== undefined && body.twofa.code.trim() === '') return 'twofa.code must not be blank';
    return undefined;
  },
  run: async ({ body }, { call }) => {
    const twofa = body.twofa === undefined ? undefined : await stepUp(body.twofa, call);
    const method = await call('payoutMethodDelete', {
      body: { payoutMethodId: body.payoutMethodId, ...(twofa === undefined ? {} : { twofa }) },
    });
    return upstreamData(toPayoutMethod(method));
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

function toPayoutMethod(value: unknown): PayoutMethod {
  const raw = obj(value);
  return {
    id: str(raw.id),
    accountId: str(raw.accountId),
    providerId: str(raw.providerId),
    type: num(raw.type),
    flags: num(raw.flags),
    status: num(raw.status),
    metadata: jsonText(raw.metadata),
    version: num(raw.version),
    // Unix ms upstream already (docs/upstream-decisions.md).
    deletedAt: num(raw.deletedAt),
  };
}
