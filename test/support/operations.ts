import type { OperationDef, OperationSchemas } from '@cg/operations';
import { queueKeys } from '@cg/queue';
import { gw, scanKeys, type TestStack } from './stack';

// Requests of the registry's operations built from their definitions (their examples), and what a
// refused request must leave untouched: the tests generated from the registry share these.

export type Operation = OperationDef<OperationSchemas>;
export type Values = Record<string, unknown>;

/** One request of an operation, by part, as its schemas read them (numbers as numbers). */
export interface Input {
  params: Values;
  query: Values | undefined;
  /** `NO_BODY`: the request carries none. */
  body: unknown;
}

/** A request sent without a body (`gw` sends none for `undefined`). */
export const NO_BODY = undefined;

/** The part of the input that names the account, if the operation names one. */
export function accountPart(op: Operation): 'params' | 'query' | undefined {
  if (op.session === 'path') return 'params';
  if (op.session === 'any' && op.schemas.querystring?.properties.accountId) return 'query';
  return undefined;
}

/** The operation's example with `account` in place of the example's account. */
export function baseline(op: Operation, account: string): Input {
  const input: Input = {
    params: { ...op.example.params },
    query: op.example.query === undefined ? undefined : { ...op.example.query },
    body: op.example.body,
  };
  const part = accountPart(op);
  if (part === 'params') input.params.accountId = account;
  if (part === 'query' && input.query) input.query.accountId = account;
  return input;
}

/** The URL of `input` under /api/{platform}; `keepAccount` leaves `{accountId}` for `runCommonRouteTests`. */
export function urlOf(op: Operation, input: Input, keepAccount = false): string {
  const path = op.path.replace(/:([A-Za-z]+)/g, (_, name: string) =>
    keepAccount && name === 'accountId' ? '{accountId}' : encodeURIComponent(String(input.params[name])),
  );
  const query = new URLSearchParams(
    Object.entries(input.query ?? {}).map(([name, value]): [string, string] => [name, String(value)]),
  ).toString();
  return query === '' ? path : `${path}?${query}`;
}

/** Sends `input` of `op` with `key`. */
export const sendOperation = (stack: TestStack, op: Operation, input: Input, key: string) =>
  gw(stack, op.method, urlOf(op, input), {
    key,
    ...(op.schemas.body && input.body !== NO_BODY ? { body: input.body } : {}),
  });

export interface Untouched {
  platformRequests: number;
  jobs: Set<string>;
}

/** Every request the sandbox has seen, whoever sent it (`totals.requests` of /_sim/observations). */
export async function platformRequests(stack: TestStack): Promise<number> {
  const observed = (await (await fetch(`${stack.simUrl}/_sim/observations`)).json()) as {
    totals: { requests: number };
  };
  return observed.totals.requests;
}

/** The jobs in Redis: BullMQ's job hashes under the queue's job prefix. */
export async function jobs(stack: TestStack): Promise<Set<string>> {
  const { jobPrefix } = queueKeys(stack.prefix);
  const found = new Set<string>();
  for (const key of await scanKeys(stack.redis, stack.prefix)) {
    if (!key.startsWith(jobPrefix) || key.slice(jobPrefix.length).includes(':')) continue;
    if ((await stack.redis.type(key)) === 'hash' && (await stack.redis.hexists(key, 'data'))) found.add(key);
  }
  return found;
}

export async function snapshot(stack: TestStack): Promise<Untouched> {
  return { platformRequests: await platformRequests(stack), jobs: await jobs(stack) };
}
