import type { Paging } from '@cg/contract';
import type { AuthEndpointName, CallArgs } from '@cg/platform-client';
import type { AccountRecord } from '@cg/store';
import type { Static, TObject, TSchema } from 'typebox';

/** The request parts of an operation, each a TypeBox object (absent parts take nothing). */
export interface OperationSchemas {
  params?: TObject;
  querystring?: TObject;
  body?: TObject;
  /** The schema of the envelope's `data` on success. */
  data: TSchema;
}

type Part<S, K extends keyof OperationSchemas> = S extends { [P in K]: infer T extends TSchema }
  ? Static<T>
  : undefined;

export interface OperationInput<S extends OperationSchemas> {
  params: Part<S, 'params'>;
  query: Part<S, 'querystring'>;
  body: Part<S, 'body'>;
}

/**
 * One request part of an example: required when the operation has that part (its value typed by
 * the part's schema), absent when it has none; in the registry's common view (`OperationSchemas`,
 * where every part may be absent) it may be either.
 */
type ExamplePart<
  S extends OperationSchemas,
  K extends 'params' | 'querystring' | 'body',
  N extends string,
> = K extends keyof S
  ? Record<never, never> extends Pick<S, K>
    ? { [P in N]?: Static<NonNullable<S[K]>> }
    : { [P in N]: Static<NonNullable<S[K]>> }
  : { [P in N]?: never };

/**
 * A realistic, valid request of an operation, by part: `params` (path), `query` and `body`, each
 * typed from the operation's schemas, so an example cannot drift from them unnoticed. It appears in
 * the OpenAPI document, builds the valid baseline of the every-operation security test, and is
 * checked against the schemas and `check` by a unit test (`test/examples.test.ts`).
 */
export type OperationExample<S extends OperationSchemas = OperationSchemas> = ExamplePart<
  S,
  'params',
  'params'
> &
  ExamplePart<S, 'querystring', 'query'> &
  ExamplePart<S, 'body', 'body'>;

export type { CallArgs } from '@cg/platform-client';

/** What the worker lends an operation while it runs. */
export interface OperationContext {
  tenantId: string;
  /** The connected account, for operations scoped to one. */
  account: AccountRecord | undefined;
  /** Calls the platform as the account (re-login on an expired session is the worker's business). */
  call<T = unknown>(endpoint: AuthEndpointName, args?: CallArgs): Promise<T>;
  /** Account linking, for /connect and /verify-2fa. */
  connector: Connector;
  /**
   * Opens the account's window `name` for `ms`, shared by every process (Redis `SET NX PX`): a
   * release function when this call opened it, null while another call holds it.
   */
  claimWindow(name: string, ms: number): Promise<(() => Promise<void>) | null>;
  /** The success status of this run, for an operation that `picksStatus`. @defaultValue successStatus */
  succeedWith(status: 200 | 201): void;
  /** Media files of the account, through its egress, each held to its lane like a platform call. */
  files: FileTransfers;
}

/** File transfers of one account, to and from the spool (`Spool`). */
export interface FileTransfers {
  /**
   * Uploads `length` bytes of spool file `name` from `start` to a presigned URL the platform handed
   * out, as a write; answers the part's ETag.
   */
  putPart(url: string, name: string, start: number, length: number): Promise<string>;
  /**
   * Downloads a CDN file into spool file `name`: 404 when the link expired or names nothing, 413
   * past `maxBytes`.
   */
  download(url: string, name: string, maxBytes: number): Promise<{ contentType: string; size: number }>;
  /** Removes spool file `name` once nothing needs it (what is left is swept after its job ends). */
  discard(name: string): void;
}

export interface ConnectRequest {
  username: string;
  password: string;
  name: string;
  countryCode: string;
}

export type ConnectResult =
  | { kind: 'connected'; accountId: string; session: Record<string, unknown> }
  | { kind: 'twofa'; twofaToken: string; maskedEmail: string };

export interface Connector {
  connect(request: ConnectRequest): Promise<ConnectResult>;
  verifyTwofa(
    request: ConnectRequest & { twoFactorToken: string; twoFactorCode: string },
  ): Promise<ConnectResult>;
}

export interface OperationDef<S extends OperationSchemas = OperationSchemas> {
  /** Stable name: the job name in the queue and the OpenAPI operationId. */
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Fastify path under /api/{platform}. */
  path: string;
  summary: string;
  /** More than the summary says (OpenAPI `description`): how to use the operation, when it needs telling. */
  description?: string;
  tags: string[];
  /**
   * Whose platform session the operation uses: `path`, the connected account named by `:accountId`;
   * `any`, one of the tenant's connected accounts (`?accountId=` picks it); `none`, no session.
   */
  session: 'path' | 'any' | 'none';
  /**
   * The lane of an operation without a session (`session: 'none'`) for the caller's tenant:
   * connecting logs in to the platform account its username names, so those logins are held to an
   * account's limits too.
   */
  lane?: (input: OperationInput<S>, tenantId: string) => string;
  /** A write changes state on the platform: never repeated when its outcome is unknown. */
  write: boolean;
  /** Connects an account to the gateway: only an admin key over every account may (keys' scopes). */
  connects?: true;
  /** The whole input is sealed in the job (it holds a password, code or token). */
  sealInput?: boolean;
  /** The result is sealed in the job (it holds a platform token). */
  sealResult?: boolean;
  /** Held to the per-account gap between two calls (chat media stats: the platform asks for 1 min). */
  gapped?: boolean;
  /** Identical requests (same key, same account) share one job while it is unfinished. */
  dedupe?: (input: OperationInput<S>) => string;
  successStatus: 200 | 201;
  /**
   * `run` picks its success status, 200 or 201 (`OperationContext.succeedWith`; follow: 201 for a new
   * relation, 200 for one that stood); OpenAPI then lists both.
   */
  picksStatus?: true;
  /** A paged listing: where its answer keeps the next page's position and its items (`x-paging`). */
  paging?: Paging;
  successMessage?: string;
  /** What a caller is told when the platform answers 404. */
  notFoundMessage?: string;
  schemas: S;
  /** A valid request (see `OperationExample`): documentation, and the baseline of generated tests. */
  example: NoInfer<OperationExample<S>>;
  /**
   * The country a login leaves from (its egress proxies'): with proxies configured, one that has
   * none is refused (400) before anything is queued.
   */
  country?: (input: OperationInput<S>) => string;
  /** Rules beyond the schema, checked before enqueueing; returns the reason for a 400. */
  check?: (input: OperationInput<S>) => string | undefined;
  run(input: OperationInput<S>, context: OperationContext): Promise<Static<S['data']>>;
}

/**
 * How an operation on one connected account (named by the `:accountId` path) runs: a read, a write
 * that changes a state (200), or a write that creates something (201). Spread into a definition.
 */
export const accountRead = { session: 'path', write: false, successStatus: 200 } as const;
export const accountUpdate = { session: 'path', write: true, successStatus: 200 } as const;
export const accountCreate = { session: 'path', write: true, successStatus: 201 } as const;

/**
 * Identity with types: infers the schemas so `run` and `check` see typed input.
 *
 * Every operation's file has this one layout: its records (`record`, `RecordValue`), then
 * `defineOperation({ name, method, path, summary, tags, ...accountRead, paging?, schemas: { params:
 * AccountParams, querystring, body, data }, example, check?, run })`. Two operations' files that
 * share runs of those lines share this shape, not logic: it is the form a definition takes.
 */
export function defineOperation<S extends OperationSchemas>(def: OperationDef<S>): OperationDef<S> {
  return def;
}

/** The usual `data` of a successful answer: `{status_code: 200, data: {success: true, response}}`. */
export function upstreamData<R, X extends object = Record<never, never>>(response: R, inner?: X) {
  return {
    status_code: 200,
    data: { success: true, response, ...inner } as { success: boolean; response: R } & X,
  };
}
