import { type Static, type TObject, type TSchema, Type } from 'typebox';
import { coerce, jsonText, millsToCents, type Raw, sent } from './coerce';
import { Nullable } from './schemas';

/**
 * Contract records declared once: each field is a kind (`f.*`) that carries its TypeBox schema and
 * its converter from the platform's value (the converters of `coerce.ts`, so a missing, null or
 * mistyped upstream value still answers the contract's type). `record` yields both the schema and
 * the mapping, so `Static<typeof X.schema>` is exactly what `X.from` returns.
 *
 * @example
 * export const Payout = record({
 *   id: f.id(),                                   // '' when the platform leaves it out
 *   amount: f.centsFromMills('cents, gross'),     // mills upstream, cents here
 *   note: f.nullableString(),                     // null when left out or null
 *   paidAt: f.optional(f.timestamp()),            // present only when the platform sends it
 *   payee: f.from('receiver', f.record(Payee)),   // upstream name differs; a nested record
 *   tags: f.array(f.string()),                    // [] when not an array
 * });
 * export type Payout = RecordValue<typeof Payout>;
 * Payout.schema                      // the TObject, for the operation's `data` schema
 * Payout.from(await call('payout'))  // the platform's object → the contract's
 * const PaidPayout = Payout.extend({ receipt: f.string() }); // more fields after these
 */

/**
 * Where a field's upstream value is read: the upstream field of that name, or a function of the
 * upstream object and of the one that holds it (`{}` at the top), for a fallback such as
 * `(raw, parent) => raw.postId ?? parent.id`.
 */
export type Source = string | ((raw: Raw, parent: Raw) => unknown);

/** One field kind: its schema, and how the upstream value becomes the contract's. */
export interface Kind<S extends TSchema = TSchema> {
  readonly schema: S;
  /** `holder`: the upstream object the value was read from (the parent of a nested record). */
  readonly convert: (value: unknown, holder: Raw) => Static<S>;
  /** Read from this upstream field or function instead of the field's own name. */
  readonly source?: Source;
  /** An optional field: present only when this holds for the upstream value. */
  readonly present?: (value: unknown) => boolean;
}

type Fields = { readonly [name: string]: Kind };
type SchemaOf<F extends Fields> = { [K in keyof F]: F[K]['schema'] };

export interface ContractRecord<F extends Fields = Fields> {
  readonly fields: F;
  readonly schema: TObject<SchemaOf<F>>;
  /** The platform's object → the contract's record (anything else reads as `{}`). */
  readonly from: (value: unknown) => Static<TObject<SchemaOf<F>>>;
  /** A record with these fields after this one's (a field of the same name is replaced in place). */
  extend<G extends Fields>(more: G): ContractRecord<Omit<F, keyof G> & G>;
}

/** Any record, as nested and list kinds take it. */
export interface RecordLike<S extends TSchema = TSchema> {
  readonly fields: Fields;
  readonly schema: S;
}

/** The contract's value of a record: `RecordValue<typeof TrackingLink>`. */
export type RecordValue<R extends RecordLike> = Static<R['schema']>;

function convertFields(fields: Fields, value: unknown, parent: Raw): Raw {
  const raw = coerce.obj(value);
  const out: Raw = {};
  for (const [name, kind] of Object.entries(fields)) {
    const source = kind.source ?? name;
    const upstream = typeof source === 'string' ? raw[source] : source(raw, parent);
    if (kind.present && !kind.present(upstream)) continue;
    out[name] = kind.convert(upstream, raw);
  }
  return out;
}

export function record<F extends Fields>(fields: F): ContractRecord<F> {
  const schemas = Object.fromEntries(Object.entries(fields).map(([name, kind]) => [name, kind.schema]));
  return {
    fields,
    schema: Type.Object(schemas) as TObject<SchemaOf<F>>,
    from: (value) => convertFields(fields, value, {}) as Static<TObject<SchemaOf<F>>>,
    extend: (more) => record({ ...fields, ...more }) as never,
  };
}

const described = (description: string | undefined) => (description === undefined ? {} : { description });
const kind = <S extends TSchema>(
  schema: S,
  convert: (value: unknown, holder: Raw) => Static<S>,
): Kind<S> => ({
  schema,
  convert,
});
const isRecord = <S extends TSchema>(value: Kind<S> | RecordLike<S>): value is RecordLike<S> =>
  'fields' in value;

/** The field kinds. Each takes an optional description, which goes into the schema. */
export const f = {
  /** A platform id: a string, `fallback` ('') when missing or null. */
  id: (description?: string, options?: { fallback?: string }) => f.string(description, options),
  /** A string, `fallback` ('') when missing or null; numbers are written out. */
  string: (description?: string, { fallback = '' }: { fallback?: string } = {}) =>
    kind(Type.String(described(description)), (value) => (sent(value) ? coerce.str(value) : fallback)),
  /** A number; 0 when missing or not a number, a numeric string read as its number. */
  number: (description?: string) => kind(Type.Number(described(description)), coerce.num),
  /** true for true, 1, '1' and 'true'; false otherwise. */
  boolean: (description?: string) => kind(Type.Boolean(described(description)), coerce.bool),
  /** A time, Unix ms upstream as in the contract. */
  timestamp: (description = 'Unix ms') => kind(Type.Number({ description }), coerce.num),
  /** A time, Unix seconds upstream, Unix ms in the contract. */
  timestampFromSeconds: (description = 'Unix ms') =>
    kind(Type.Number({ description }), (value) => coerce.num(value) * 1000),
  /** Money: mills (1/1000 USD) upstream, whole cents in the contract. */
  centsFromMills: (description = 'cents') => kind(Type.Number({ description }), millsToCents),
  /** JSON text: a string as sent, anything else serialised, `fallback` when missing. */
  jsonText: (description = 'JSON text', { fallback = '{}' }: { fallback?: string } = {}) =>
    kind(Type.String({ description }), (value) => jsonText(value, fallback)),
  /** Anything, passed on as sent; null when missing. */
  unknown: (description?: string) => kind(Type.Unknown(described(description)), (value) => value ?? null),
  /** An object of any fields, passed on as sent; `{}` when not an object. */
  object: (description?: string) =>
    kind(Type.Record(Type.String(), Type.Unknown(), described(description)), coerce.obj),
  /** `inner`, or null when missing, null, or (with `emptyIsNull`) ''. */
  nullable: <S extends TSchema>(inner: Kind<S>, { emptyIsNull = false }: { emptyIsNull?: boolean } = {}) => ({
    ...kind(Nullable(inner.schema), (value, holder) =>
      !sent(value) || (emptyIsNull && value === '') ? null : (inner.convert(value, holder) as never),
    ),
    ...(inner.source === undefined ? {} : { source: inner.source }),
  }),
  nullableString: (description?: string, options?: { emptyIsNull?: boolean }) =>
    f.nullable(f.string(description), options),
  nullableNumber: (description?: string, options?: { emptyIsNull?: boolean }) =>
    f.nullable(f.number(description), options),
  /**
   * A field the contract makes optional: present only when the platform sends it (neither left out
   * nor null), or when `when` holds for the upstream value.
   */
  optional: <S extends TSchema>(inner: Kind<S>, when: (value: unknown) => boolean = sent) => ({
    ...inner,
    schema: Type.Optional(inner.schema),
    present: when,
  }),
  /** A list of `items` (a kind or a record); [] when not an array. */
  array: <S extends TSchema>(items: Kind<S> | RecordLike<S>, description?: string) => {
    const item = isRecord(items) ? f.record(items) : items;
    return kind(
      Type.Array(item.schema, described(description)),
      (value, holder) =>
        (Array.isArray(value) ? value.map((element) => item.convert(element, holder)) : []) as never,
    );
  },
  /** A nested record; `{}` is read when the platform sends no object, so every field is there. */
  record: <S extends TSchema>(nested: RecordLike<S>, description?: string): Kind<S> =>
    kind(
      description === undefined
        ? nested.schema
        : (Type.Object((nested.schema as unknown as TObject).properties, { description }) as unknown as S),
      (value, holder) => convertFields(nested.fields, value, holder) as never,
    ),
  /** Reads `inner` from another upstream field, or from what a function picks (see `Source`). */
  from: <K extends Kind>(source: Source, inner: K): K => ({ ...inner, source }),
  /** A kind of one's own, for a rule no other kind states: its schema and its converter. */
  custom: <S extends TSchema>(schema: S, convert: (value: unknown) => Static<S>) => kind(schema, convert),
};
