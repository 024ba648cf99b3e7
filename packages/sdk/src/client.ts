import { GatewayApiError, JobTimeoutError } from './errors.js';
import { type EventStreamOptions, type StreamedEvent, streamEvents } from './events.js';
import { idempotencyKey } from './idempotency.js';
import { OPERATIONS, type OperationName } from './operations.js';
import { PAGINATION, type PagedOperationName, valueAt } from './pagination.js';
import { sleep } from './sleep.js';
import type { AcceptedAnswer, ArgsTuple, At, OperationAnswer, OperationArgs } from './types.js';

export interface PollOptions {
  /** First wait before asking for a job's status again. @defaultValue 250 */
  intervalMs?: number;
  /** The wait grows by half each time up to this. @defaultValue 2000 */
  maxIntervalMs?: number;
  /** How long to follow a job before `JobTimeoutError` (the job goes on). @defaultValue 300000 */
  timeoutMs?: number;
}

export interface RetryOptions {
  /** Tries of one call, the first included; 1 turns retries off. @defaultValue 3 */
  attempts?: number;
  /** A `Retry-After` longer than this is not waited for: the error is thrown. @defaultValue 30000 */
  maxDelayMs?: number;
}

export interface ClientOptions {
  /**
   * The gateway: its root (`http://127.0.0.1:3000`) or its API root
   * (`http://127.0.0.1:3000/api/fansly`, what `pnpm start` prints), which also sets `platform`.
   */
  baseUrl: string;
  /** Sent as `x-api-key` on every request. */
  apiKey: string;
  /** The path word of the API root, `/api/<platform>`. @defaultValue `fansly` or the one in baseUrl */
  platform?: string;
  /** A fetch to use instead of `globalThis.fetch` (a test double, a proxy agent, a Worker's fetch). */
  fetch?: typeof fetch;
  /** Headers added to every request. */
  headers?: Record<string, string>;
  poll?: PollOptions;
  retry?: RetryOptions;
}

export interface CallOptions {
  signal?: AbortSignal;
  /**
   * The `Idempotency-Key` of this write (operations that take one: writes to an account). Unset, the
   * client makes one per call and reuses it for that call's retries; `false` sends none (and then a
   * write is retried only when the gateway refused it before queueing it).
   */
  idempotencyKey?: string | false;
  /** `Prefer: wait=<seconds>`: how long the gateway waits for the job before answering 202. */
  waitSeconds?: number;
  /** Overrides the client's polling for this call. */
  poll?: PollOptions;
  headers?: Record<string, string>;
}

type OperationMethods = {
  [N in OperationName]: (
    ...args: ArgsTuple<OperationArgs<N>, [options?: CallOptions]>
  ) => Promise<OperationAnswer<N>>;
};

/** Operations that may answer 202: they can be submitted and followed as jobs. */
export type AsyncOperationName = {
  [N in OperationName]: (typeof OPERATIONS)[N]['accepts202'] extends true ? N : never;
}[OperationName];

/** A request accepted as a job (`client.submit.*`). */
export interface Job<N extends OperationName> {
  /** '' when the gateway answered at once (`result()` then resolves to that answer). */
  jobId: string;
  statusUrl: string;
  /** The state when it was accepted: waiting, delayed, active, ... */
  state: string;
  /** Polls the job until it ends: what the synchronous call answers (or throws). */
  result(options?: { signal?: AbortSignal; poll?: PollOptions }): Promise<OperationAnswer<N>>;
}

/** The items of a paged operation's answer, one at a time. */
export type PageItem<N extends PagedOperationName> =
  At<OperationAnswer<N>, (typeof PAGINATION)[N]['items']> extends readonly (infer I)[] ? I : never;

export type GatewayClient = OperationMethods & {
  /**
   * Every item of a paged operation, page after page (`for await (const fan of
   * client.paginate.subscribers({ accountId, status: 'active' }))`). A `cursor` (or `offset`) in the
   * arguments starts from there.
   */
  paginate: { [N in PagedOperationName]: ItemsMethod<N> };
  /** Every page's whole answer, for the fields beside the items (totals, the cursor to keep). */
  pages: { [N in PagedOperationName]: PagesMethod<N> };
  /** Sends with `Prefer: respond-async` and answers the job at once: `await job.result()` later. */
  submit: {
    [N in AsyncOperationName]: (
      ...args: ArgsTuple<OperationArgs<N>, [options?: CallOptions]>
    ) => Promise<Job<N>>;
  };
  /** Follows a job by id until it ends: the status and body of the call that was accepted. */
  waitForJob(jobId: string, options?: { signal?: AbortSignal; poll?: PollOptions }): Promise<unknown>;
  events: {
    /**
     * The tenant's events as they happen (`GET /events/stream`), for `for await`: reconnects by
     * itself and resumes after the last event it yielded, so each comes once and in order (pass a
     * kept `cursor` as `after` to resume across runs). Break out of the loop, or abort `signal`, to
     * close it.
     */
    stream(options?: EventStreamOptions): AsyncIterableIterator<StreamedEvent>;
  };
};

type ItemsMethod<N extends PagedOperationName> = (
  ...args: ArgsTuple<OperationArgs<N>, [options?: CallOptions]>
) => AsyncIterableIterator<PageItem<N>>;
type PagesMethod<N extends PagedOperationName> = (
  ...args: ArgsTuple<OperationArgs<N>, [options?: CallOptions]>
) => AsyncIterableIterator<OperationAnswer<N>>;

type Entry = (typeof OPERATIONS)[OperationName];
type Args = Record<string, unknown> & { body?: unknown };

const DEFAULT_POLL: Required<PollOptions> = { intervalMs: 250, maxIntervalMs: 2000, timeoutMs: 300_000 };
const DEFAULT_RETRY: Required<RetryOptions> = { attempts: 3, maxDelayMs: 30_000 };

/**
 * A client of the gateway with one method per operation (`client.subscribers({ accountId, status:
 * 'active' })`), typed from the OpenAPI document. A call resolves to the envelope the gateway
 * answers on success, after following a 202 to the job's end, and throws `GatewayApiError` for any
 * failure. Uses only fetch and WebCrypto: it runs in Node 20 and in browsers alike.
 */
export function createClient(options: ClientOptions): GatewayClient {
  const transport = new Transport(options);
  const methods = {} as Record<string, unknown>;
  const paginate = {} as Record<string, unknown>;
  const pages = {} as Record<string, unknown>;
  const submit = {} as Record<string, unknown>;
  for (const name of Object.keys(OPERATIONS) as OperationName[]) {
    methods[name] = (args?: Args, call?: CallOptions) => transport.call(name, args ?? {}, call ?? {});
    if (OPERATIONS[name].accepts202)
      submit[name] = (args?: Args, call?: CallOptions) => transport.submit(name, args ?? {}, call ?? {});
  }
  for (const name of Object.keys(PAGINATION) as PagedOperationName[]) {
    pages[name] = (args?: Args, call?: CallOptions) => transport.pages(name, args ?? {}, call ?? {});
    paginate[name] = (args?: Args, call?: CallOptions) => transport.items(name, args ?? {}, call ?? {});
  }
  return {
    ...methods,
    paginate,
    pages,
    submit,
    waitForJob: (jobId: string, wait?: { signal?: AbortSignal; poll?: PollOptions }) =>
      transport.waitForJob('job-status', jobId, wait ?? {}),
    events: { stream: (stream?: EventStreamOptions) => transport.stream(stream ?? {}) },
  } as GatewayClient;
}

/** A response and, for a failure, its body already read (the retry decision needs its code). */
interface Sent {
  response: Response;
  failure?: { body: unknown; retryAfter: number | undefined };
}

class Transport {
  private readonly root: string;
  private readonly apiRoot: string;
  private readonly fetch: typeof fetch;
  private readonly poll: Required<PollOptions>;
  private readonly retry: Required<RetryOptions>;

  constructor(private readonly options: ClientOptions) {
    const base = options.baseUrl.replace(/\/+$/, '');
    // An API root (`…/api/fansly`) is taken apart, so routes outside it (health) are reachable too.
    const api = /^(.*)\/api\/([^/]+)$/.exec(base);
    this.root = api?.[1] ?? base;
    this.apiRoot = `${this.root}/api/${options.platform ?? api?.[2] ?? 'fansly'}`;
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.poll = { ...DEFAULT_POLL, ...options.poll };
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
  }

  /** One call: sent (retried where that is safe), a 202 followed to its end, the answer read. */
  async call(name: OperationName, args: Args, options: CallOptions): Promise<unknown> {
    const entry: Entry = OPERATIONS[name];
    const prefer = options.waitSeconds === undefined ? undefined : `wait=${options.waitSeconds}`;
    const sent = await this.send(entry, args, options, prefer);
    if (sent.response.status === 202 && entry.accepts202) {
      const accepted = (await sent.response.json()) as AcceptedAnswer;
      const wait = { ...signalOf(options), ...(options.poll ? { poll: options.poll } : {}) };
      return this.waitForJob(entry.id, accepted.data.jobId, wait, entry);
    }
    return this.read(entry, sent);
  }

  async submit(name: OperationName, args: Args, options: CallOptions): Promise<Job<OperationName>> {
    const entry: Entry = OPERATIONS[name];
    const sent = await this.send(entry, args, options, 'respond-async');
    if (sent.response.status !== 202) {
      const answer = await this.read(entry, sent);
      return { jobId: '', statusUrl: '', state: 'completed', result: async () => answer as never };
    }
    const { data } = (await sent.response.json()) as AcceptedAnswer;
    return {
      ...data,
      result: (wait = {}) => this.waitForJob(entry.id, data.jobId, wait, entry) as Promise<never>,
    };
  }

  /**
   * Asks for the job's status until it is no longer 202, waiting longer each time. The job is
   * looked up by id under this client's own API root, never at the `statusUrl` the answer named: a
   * URL built from a request's Host may point anywhere, and the API key goes with the request.
   */
  async waitForJob(
    operation: string,
    jobId: string,
    wait: { signal?: AbortSignal; poll?: PollOptions },
    entry?: Entry,
  ): Promise<unknown> {
    const poll = { ...this.poll, ...wait.poll };
    const started = Date.now();
    let interval = poll.intervalMs;
    for (;;) {
      const left = started + poll.timeoutMs - Date.now();
      if (left <= 0) throw new JobTimeoutError(jobId, `${this.apiRoot}/jobs/${jobId}`, Date.now() - started);
      await sleep(Math.min(interval, left), wait.signal);
      const sent = await this.send(OPERATIONS.jobStatus, { jobId }, signalOf(wait));
      if (sent.response.status !== 202) return this.read(entry ?? OPERATIONS.jobStatus, sent, operation);
      await sent.response.body?.cancel();
      interval = Math.min(interval * 1.5, poll.maxIntervalMs);
    }
  }

  async *pages(name: PagedOperationName, args: Args, options: CallOptions): AsyncGenerator<unknown> {
    const spec = PAGINATION[name];
    let current: Args = { ...args };
    const seen = new Set<string>();
    for (;;) {
      const answer = await this.call(name, current, options);
      yield answer;
      if ('offset' in spec) {
        const items = valueAt(answer, spec.items);
        const total = valueAt(answer, spec.total);
        const offset = Number(current.offset ?? 0) + (Array.isArray(items) ? items.length : 0);
        if (!Array.isArray(items) || items.length === 0 || (typeof total === 'number' && offset >= total))
          return;
        current = { ...current, offset };
      } else {
        const next = valueAt(answer, spec.cursor);
        // A cursor seen before would page in a circle: a listing that answers one is over.
        if (typeof next !== 'string' || next === '' || seen.has(next)) return;
        seen.add(next);
        current = { ...current, cursor: next };
      }
    }
  }

  /** `GET /events/stream` as events (events.ts), with this client's fetch and headers. */
  stream(options: EventStreamOptions): AsyncGenerator<StreamedEvent, void, undefined> {
    const entry = OPERATIONS.eventsStream;
    return streamEvents(
      {
        url: (query) => {
          const search = query.toString();
          return `${this.apiRoot}${entry.path}${search === '' ? '' : `?${search}`}`;
        },
        fetch: this.fetch,
        headers: { ...this.options.headers, 'x-api-key': this.options.apiKey },
        failure: readFailure,
      },
      options,
    );
  }

  async *items(name: PagedOperationName, args: Args, options: CallOptions): AsyncGenerator<unknown> {
    for await (const answer of this.pages(name, args, options)) {
      const items = valueAt(answer, PAGINATION[name].items);
      if (Array.isArray(items)) yield* items;
    }
  }

  /**
   * Sends one request, again after a failure that proves nothing was done, or when repeating it
   * cannot do it twice: a read, or a write under its `Idempotency-Key` (one per call, the same for
   * each of its tries). Waits as `Retry-After` says, or a growing backoff.
   */
  private async send(entry: Entry, args: Args, options: CallOptions, prefer?: string): Promise<Sent> {
    const key =
      entry.idempotent && options.idempotencyKey !== false
        ? (options.idempotencyKey ?? idempotencyKey())
        : undefined;
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...this.options.headers,
      ...options.headers,
      'x-api-key': this.options.apiKey,
      ...(key === undefined ? {} : { 'idempotency-key': key }),
      ...(prefer === undefined ? {} : { prefer }),
    };
    const body = encodeBody(args.body, headers);
    const replayable = entry.method === 'GET' || key !== undefined;
    const url = this.url(entry, args);
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= this.retry.attempts;
      let response: Response;
      try {
        response = await this.fetch(url, {
          method: entry.method,
          headers,
          ...(body === undefined ? {} : { body }),
          // The gateway never redirects; following one would send the API key to its target.
          redirect: 'error',
          ...signalOf(options),
        });
      } catch (error) {
        // The request may have reached the gateway: only a repeat that cannot do it twice is sent.
        if (options.signal?.aborted || last || !replayable) throw error;
        await sleep(backoffMs(attempt), options.signal);
        continue;
      }
      if (response.status < 400) return { response };
      const failure = await readFailure(response);
      const delay = failure.retryAfter === undefined ? backoffMs(attempt) : failure.retryAfter * 1000;
      if (last || !nothingDone(response.status, failure.body) || delay > this.retry.maxDelayMs)
        return { response, failure };
      await sleep(delay, options.signal);
    }
  }

  private url(entry: Entry, args: Args): string {
    const used = new Set<string>(['body']);
    const path = entry.path.replace(/\{([^}]+)\}/g, (_all, name: string) => {
      used.add(name);
      const value = args[name];
      if (value === undefined || value === null || value === '')
        throw new TypeError(`${entry.id} needs ${name}`);
      return encodeURIComponent(String(value));
    });
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(args)) {
      if (used.has(name) || value === undefined || value === null) continue;
      query.append(name, Array.isArray(value) ? value.join(',') : String(value));
    }
    const search = query.toString();
    return `${entry.prefixed ? this.apiRoot : this.root}${path}${search === '' ? '' : `?${search}`}`;
  }

  /** A success as the operation's answer kind; a failure as `GatewayApiError`. */
  private async read(entry: Entry, sent: Sent, operation: string = entry.id): Promise<unknown> {
    const { response, failure } = sent;
    if (failure) throw new GatewayApiError(operation, response.status, failure.body, failure.retryAfter);
    // Widened: the document of the day may have no operation of one kind or another.
    const kind = entry.answer as 'json' | 'text' | 'raw';
    if (kind === 'raw') return response;
    const text = await response.text();
    if (kind === 'text') return text;
    return text === '' ? undefined : JSON.parse(text);
  }
}

/**
 * Failures that prove the request was refused before anything was queued, so a repeat cannot do
 * it twice: 429 (the key's rate or the account's backlog), 503 `SERVICE_UNAVAILABLE` (the gateway's
 * Redis is away), 409 `IDEMPOTENCY_KEY_IN_USE` (the first request with the key is being queued).
 * 503 `UPSTREAM_UNAVAILABLE` is not among them: the gateway has already retried the platform.
 */
function nothingDone(status: number, body: unknown): boolean {
  const code = (body as { code?: unknown } | undefined)?.code;
  if (status === 429) return true;
  if (status === 503) return code === 'SERVICE_UNAVAILABLE';
  return status === 409 && code === 'IDEMPOTENCY_KEY_IN_USE';
}

async function readFailure(response: Response): Promise<{ body: unknown; retryAfter: number | undefined }> {
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { body, retryAfter: retryAfterSeconds(response.headers.get('retry-after')) };
}

/** `Retry-After` in seconds: delta-seconds or an HTTP date. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

function encodeBody(body: unknown, headers: Record<string, string>): string | FormData | undefined {
  if (body === undefined) return undefined;
  // A form sets its own content type, with the boundary.
  if (typeof FormData !== 'undefined' && body instanceof FormData) return body;
  headers['content-type'] = 'application/json';
  return JSON.stringify(body);
}

function backoffMs(attempt: number): number {
  return 250 * 2 ** (attempt - 1) * (0.5 + Math.random() / 2);
}

function signalOf(options: { signal?: AbortSignal | undefined }): { signal?: AbortSignal } {
  return options.signal ? { signal: options.signal } : {};
}
