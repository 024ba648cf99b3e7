/**
 * The client's types, read from the generated schema (src/schema.ts): nothing here restates a
 * request or an answer, so a route that changes changes its method's types on the next generate.
 */
import type { OPERATIONS, OperationName } from './operations.js';
import type { operations } from './schema.js';

/** Operations whose request body is a multipart form the document does not describe (a file upload). */
export type FormOperationName = 'mediaUpload';

type OperationOf<N extends OperationName> = operations[(typeof OPERATIONS)[N]['id']];

type Flatten<T> = { [K in keyof T]: T[K] } & {};
/** `{}` for a part the operation does not have (`never` or absent in the schema). */
type Part<T> = [NonNullable<T>] extends [never] ? unknown : NonNullable<T>;

type ParametersOf<O> = O extends { parameters: infer P } ? P : never;
type PathOf<O> = Part<ParametersOf<O> extends { path?: infer P } ? P : never>;
type QueryOf<O> = Part<ParametersOf<O> extends { query?: infer Q } ? Q : never>;

type RequestBodyOf<O> = O extends { requestBody?: infer R } ? NonNullable<R> : never;
// `requestBody?: never` (an operation without a body) must not read as a body of any type.
type JsonBodyOf<O> = [RequestBodyOf<O>] extends [never]
  ? never
  : RequestBodyOf<O> extends { content: { 'application/json': infer B } }
    ? B
    : never;
type BodyOf<N extends OperationName, O> = N extends FormOperationName
  ? { body: FormData }
  : [JsonBodyOf<O>] extends [never]
    ? unknown
    : O extends { requestBody: unknown }
      ? { body: JsonBodyOf<O> }
      : { body?: JsonBodyOf<O> };

type OptionalKeys<T> = { [K in keyof T]-?: Record<never, never> extends Pick<T, K> ? K : never }[keyof T];
/** Optional parameters may also be given as `undefined` (left out of the request), as JS code does. */
type Loose<T> = { [K in Exclude<keyof T, OptionalKeys<T>>]: T[K] } & {
  [K in OptionalKeys<T>]?: T[K] | undefined;
};

/**
 * What a method takes: its path and query parameters in one object (their names never collide:
 * the generator checks it), and `body` for an operation that has one.
 */
export type OperationArgs<N extends OperationName> = Flatten<
  Loose<PathOf<OperationOf<N>> & QueryOf<OperationOf<N>>> & BodyOf<N, OperationOf<N>>
>;

type Responses<N extends OperationName> = OperationOf<N> extends { responses: infer R } ? R : never;
type SuccessStatus = 200 | 201 | '2XX';
type ContentOf<R> = R extends { content: infer C } ? C : never;

/** The JSON answer of a success (the envelope), for every 2xx the operation may give but 202. */
export type OperationAnswer<N extends OperationName> = (typeof OPERATIONS)[N]['answer'] extends 'raw'
  ? Response
  : (typeof OPERATIONS)[N]['answer'] extends 'text'
    ? string
    : {
        [S in keyof Responses<N>]: S extends SuccessStatus
          ? ContentOf<Responses<N>[S]> extends { 'application/json': infer J }
            ? J
            : never
          : never;
      }[keyof Responses<N>];

/** The error body every failure carries: `{statusCode, message, error, code, requestId}`. */
export type ErrorBody = operations['list-accounts']['responses']['4XX']['content']['application/json'];
/** The stable error codes to match on. */
export type ErrorCode = ErrorBody['code'];

/** The 202 answer: the request was accepted as a job. */
export type AcceptedAnswer = operations['job-status']['responses'][202]['content']['application/json'];

/** Whether a method may be called without arguments (none of its parameters is required). */
export type ArgsTuple<A, Rest extends unknown[]> =
  Record<never, never> extends A ? [args?: A, ...rest: Rest] : [args: A, ...rest: Rest];

/** The value at `path` inside `T` (optional and nullable steps included). */
export type At<T, P extends readonly string[]> = P extends readonly [
  infer Head extends string,
  ...infer Rest extends readonly string[],
]
  ? At<NonNullable<T> extends infer U ? (U extends Record<Head, infer V> ? V : never) : never, Rest>
  : T;
