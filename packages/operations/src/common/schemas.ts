import { Type } from 'typebox';
import { Format } from 'typebox/format';

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
/**
 * The formats of text fields (`Text`, `NonEmpty`, `NonBlank`), as `TEXT_RULE` states them: `text`
 * for one line, `long-text` for what a person writes in lines (message and post bodies,
 * descriptions). Both refuse what would reach the platform as other than it reads: control
 * characters, and bidirectional controls left open (they reorder the text after them, on screens
 * the sender never sees) or closing nothing. U+200B (zero-width space) and the rest pass. The API's
 * validator and TypeBox's (`Value.Check`) both read them (`TEXT_FORMATS`).
 */
export type TextFormat = 'text' | 'long-text';

/** The rule of the text formats, in words, for the OpenAPI document and docs/api.md. */
export const TEXT_RULE =
  'Strings of format `text` hold no control characters (U+0000–U+001F, U+007F); long text, format ' +
  '`long-text` (message and post bodies, descriptions), none but newline and tab. In both, each ' +
  'bidirectional embedding or override (U+202A–U+202E) is closed by U+202C and each isolate ' +
  '(U+2066–U+2068) by U+2069 on the same line, properly nested.';

/** The control characters each text format refuses (finding them is the point of these patterns). */
const CONTROL: Record<TextFormat, RegExp> = {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: C0 and DEL
  text: /[\u0000-\u001f\u007f]/,
  // biome-ignore lint/suspicious/noControlCharactersInRegex: C0 and DEL but tab and newline
  'long-text': /[\u0000-\u0008\u000b-\u001f\u007f]/,
};

/** Each opening bidirectional control and its closer: PDF for embeddings and overrides, PDI for isolates. */
const BIDI_CLOSER: Record<string, string> = {
  '\u202a': '\u202c',
  '\u202b': '\u202c',
  '\u202d': '\u202c',
  '\u202e': '\u202c',
  '\u2066': '\u2069',
  '\u2067': '\u2069',
  '\u2068': '\u2069',
};
const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/;
/** Paragraph separators (bidi class B): the bidirectional algorithm ends what is open at each one. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: three of the separators are control characters
const PARAGRAPH_END = /[\n\r\u001c-\u001e\u0085\u2029]/;

/** Whether every bidirectional control of `value` is paired with its closer, line by line, nested. */
function bidiPaired(value: string): boolean {
  if (!BIDI_CONTROL.test(value)) return true;
  for (const line of value.split(PARAGRAPH_END)) {
    const awaited: string[] = [];
    for (const char of line) {
      const closer = BIDI_CLOSER[char];
      if (closer !== undefined) awaited.push(closer);
      else if ((char === '\u202c' || char === '\u2069') && awaited.pop() !== char) return false;
    }
    if (awaited.length > 0) return false;
  }
  return true;
}

/** What is wrong with `value` as text of `format`, as the 400 says it, else undefined. */
export function textProblem(value: string, format: TextFormat): string | undefined {
  if (CONTROL[format].test(value)) return 'must not contain control characters';
  if (!bidiPaired(value)) return 'has an unpaired bidirectional control';
  return undefined;
}

/** The text formats' checks, by name, for a validator to register. */
const TEXT_FORMATS: Record<TextFormat, (value: string) => boolean> = {
  text: (value) => textProblem(value, 'text') === undefined,
  'long-text': (value) => textProblem(value, 'long-text') === undefined,
};

/** A validator formats can be added to (Ajv). */
interface FormatRegistry {
  addFormat(name: string, format: { type: 'string'; validate: (value: string) => boolean }): unknown;
}

/** Registers the text formats on a validator: every validator of the routes' schemas needs them. */
export function addTextFormats<V extends FormatRegistry>(validator: V): V {
  for (const [name, validate] of Object.entries(TEXT_FORMATS))
    validator.addFormat(name, { type: 'string', validate });
  return validator;
}

export const isTextFormat = (format: unknown): format is TextFormat =>
  typeof format === 'string' && Object.hasOwn(TEXT_FORMATS, format);

// TypeBox's registry is the process's: every `Value.Check` of a request schema (the examples' test,
// the generated security tests) then reads text fields as the API does.
for (const [name, check] of Object.entries(TEXT_FORMATS)) Format.Set(name, check);

interface TextOptions {
  /** At most this many UTF-16 units. @defaultValue none for `Text`, 1000 for `NonEmpty` and `NonBlank` */
  maxLength?: number;
  /** Long text (`long-text`): newline and tab are taken too. @defaultValue false */
  long?: boolean;
}

/** A string schema of a text format with `keywords`. */
const textSchema = (description: string | undefined, long: boolean, keywords: object) =>
  Type.String({ ...keywords, format: long ? 'long-text' : 'text', ...(description ? { description } : {}) });

/** A text field (`TextFormat`), empty or not. */
export const Text = (description?: string, { maxLength, long = false }: TextOptions = {}) =>
  textSchema(description, long, maxLength === undefined ? {} : { maxLength });

/** A text field (`TextFormat`) of at least one character. */
export const NonEmpty = (description?: string, { maxLength = 1000, long = false }: TextOptions = {}) =>
  textSchema(description, long, { minLength: 1, maxLength });

/** What NonBlank strings match: a character that is not white space. */
export const NON_BLANK_PATTERN = '\\S';

/**
 * A text field (`TextFormat`) with a character that is not white space: a blank one would reach
 * the platform as an empty one (it trims) or as an id it cannot name. The 400 names the field and
 * says it "must not be blank" (the API's validation message knows this pattern); an empty body
 * field, "must not be empty".
 */
export const NonBlank = (description?: string, { maxLength = 1000, long = false }: TextOptions = {}) =>
  textSchema(description, long, { minLength: 1, maxLength, pattern: NON_BLANK_PATTERN });

export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);
