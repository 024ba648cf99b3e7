import { Type } from 'typebox';

/** Path parameter of account-scoped operations (`/{account_id}/...` in the contract). */
export const AccountParams = Type.Object({
  // Any id that is not one of the caller's accounts is 404, malformed or not (an id is opaque).
  accountId: Type.String({ minLength: 1, maxLength: 100, description: 'service account id from /connect' }),
});

/** A platform id: a snowflake, the decimal string of a 63-bit integer. */
export const SNOWFLAKE_PATTERN = '^\\d{1,19}$';

/**
 * A platform id in a path, where a malformed one would otherwise hold something back before the
 * platform answered 404, such as the account's media-stats gap.
 */
export const PlatformId = (description: string) => Type.String({ pattern: SNOWFLAKE_PATTERN, description });

/** A Unix ms time the caller sends (a query or body field). */
/** Up to the last millisecond a JavaScript date can hold: a larger one would reach the platform as "1e+21". */
export const UnixMs = (description: string) =>
  Type.Integer({ minimum: 0, maximum: 8_640_000_000_000_000, description });

export const CountryCode = Type.String({
  pattern: '^[A-Z]{2}$',
  description: 'ISO 3166-1 alpha-2, capital letters',
});
export const NonEmpty = (description?: string) =>
  Type.String({ minLength: 1, maxLength: 1000, ...(description ? { description } : {}) });

export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

/** Connection session: the contract's "result of a completed connection". */
export const ConnectionSession = Type.Object({
  accountId: Type.String(),
  deviceId: Nullable(Type.String()),
  ip: Type.String(),
  status: Type.Number(),
  metadata: Type.Unknown(),
  id: Type.String(),
  token: Type.String({ description: 'platform session token (a secret)' }),
  checkToken: Type.Unknown(),
});

export const ConnectedData = Type.Object({
  status_code: Type.Integer(),
  account_id: Type.String(),
  data: Type.Object({ success: Type.Boolean(), response: ConnectionSession }),
});

export const TwofaNeededData = Type.Object({
  status_code: Type.Integer(),
  requires_2fa: Type.Boolean(),
  twofa_token: Type.String(),
  masked_email: Type.String(),
  message: Type.String(),
});
