import { Type } from 'typebox';

/** Path parameter of account-scoped operations (`/{account_id}/...` in the contract). */
export const AccountParams = Type.Object({
  // Any id that is not one of the caller's accounts is 404, malformed or not (an id is opaque).
  accountId: Type.String({ minLength: 1, maxLength: 100, description: 'service account id from /connect' }),
});

/**
 * The account of the operations' examples: a service account id as `/connect` answers it
 * (`acct_` and 22 base62 characters, `newId('acct')` in @cg/store).
 */
export const EXAMPLE_ACCOUNT_ID = 'acct_7Qm2Xc9LpR4vN8sK1tW6bZ';

/** The clock examples take their times from; generated files pin it, so they do not change daily. */
export const exampleClock = { now: (): number => Date.now() };
/** The time generated files (docs, the SDK's types) read their examples at (`exampleClock`). */
export const PINNED_EXAMPLE_CLOCK_MS = Date.UTC(2026, 0, 1);

const HOUR_MS = 3_600_000;
/**
 * A time `days` ahead, on the hour, for an example whose field must lie in the future: read from an
 * example's getter, it is valid whenever the example is read.
 */
export const exampleTimeAhead = (days: number): number =>
  Math.ceil((exampleClock.now() + days * 24 * HOUR_MS) / HOUR_MS) * HOUR_MS;

/** The `params` of an example of an operation whose only path parameter is the account. */
export const accountExample = { accountId: EXAMPLE_ACCOUNT_ID };

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

/** What NonBlank strings match: a character that is not white space. */
export const NON_BLANK_PATTERN = '\\S';

/**
 * A string with a character that is not white space: a blank one would reach the platform as an
 * empty one (it trims) or as an id it cannot name. The 400 names the field and says it "must not be
 * blank" (the API's validation message knows this pattern); an empty body field, "must not be empty".
 */
export const NonBlank = (description?: string, { maxLength = 1000 }: { maxLength?: number } = {}) =>
  Type.String({
    minLength: 1,
    maxLength,
    pattern: NON_BLANK_PATTERN,
    ...(description ? { description } : {}),
  });

export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);
