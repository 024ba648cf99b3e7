import { ControlError } from './errors';

/**
 * Injected faults (POST /_sim/faults). A fault matches a request by account scope, path prefix
 * and method; it lasts for `count` affected requests, for `durationMs`, or until cleared.
 */

export type FaultEffect =
  | { kind: 'latency'; minMs: number; maxMs: number }
  | { kind: 'error'; status: number; rate: number }
  | { kind: 'rateLimit'; retryAfterSeconds: number }
  | { kind: 'resetBeforeApply' }
  | { kind: 'resetAfterApply' }
  | { kind: 'sessionExpiry' }
  | { kind: 'ws_drop' };

export interface FaultScope {
  creator: number;
  accountId: string;
  username: string;
}

export interface Fault {
  id: string;
  effect: FaultEffect;
  scope: FaultScope | null;
  path: string | null;
  method: string | null;
  /** Requests it may still affect; null = unlimited. */
  remaining: number | null;
  expiresAt: number | null;
  createdAt: number;
  applied: number;
}

export interface FaultOutcome {
  latencyMs: number;
  terminal: Fault | null;
  applied: number;
}

const API_PREFIX = '/api/v1';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function numberField(
  body: Record<string, unknown>,
  name: string,
  min: number,
  max: number,
): number | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw new ControlError(400, `"${name}" must be a number between ${min} and ${max}`);
  }
  return value;
}

/** The fields a fault may have: every kind's, the scope of those kept in the list, each kind's own. */
const FIELDS = ['kind', 'account'];
const SCOPE_FIELDS = ['path', 'method', 'count', 'durationMs'];
const KIND_FIELDS: Record<string, string[]> = {
  latency: ['ms', 'minMs', 'maxMs'],
  error: ['status', 'rate'],
  rateLimit: ['retryAfterSeconds'],
  resetBeforeApply: [],
  resetAfterApply: [],
};
/** ws_drop acts on realtime connections: no path or method; `count` = connections refused. */
const WS_DROP_FIELDS = ['count', 'durationMs'];
const METHODS = ['GET', 'POST', 'PUT', 'DELETE'];

/** A misspelled field (`acount`) would silently make a fault global: it is refused instead. */
function checkFields(body: Record<string, unknown>): void {
  const kind = String(body.kind);
  // sessionExpiry acts once, when posted: it has no path, method, count or duration.
  const allowed =
    kind === 'sessionExpiry'
      ? FIELDS
      : kind === 'ws_drop'
        ? [...FIELDS, ...WS_DROP_FIELDS]
        : [...FIELDS, ...SCOPE_FIELDS, ...(KIND_FIELDS[kind] ?? [])];
  const unknown = Object.keys(body).filter((field) => !allowed.includes(field));
  if (unknown.length > 0)
    throw new ControlError(400, `a ${kind} fault takes ${allowed.join(', ')}; not ${unknown.join(', ')}`);
}

function parseEffect(body: Record<string, unknown>): FaultEffect {
  switch (body.kind) {
    case 'latency': {
      const ms = numberField(body, 'ms', 0, 120_000);
      const minMs = numberField(body, 'minMs', 0, 120_000);
      const maxMs = numberField(body, 'maxMs', 0, 120_000);
      if (ms !== undefined) return { kind: 'latency', minMs: ms, maxMs: ms };
      if (minMs !== undefined && maxMs !== undefined && minMs <= maxMs)
        return { kind: 'latency', minMs, maxMs };
      throw new ControlError(400, 'latency needs "ms" or "minMs" <= "maxMs"');
    }
    case 'error': {
      const status = numberField(body, 'status', 400, 599) ?? 503;
      if (!Number.isInteger(status)) throw new ControlError(400, '"status" must be an integer');
      if (status === 429) throw new ControlError(400, 'a 429 is the rateLimit fault (with its Retry-After)');
      return { kind: 'error', status, rate: numberField(body, 'rate', 0, 1) ?? 1 };
    }
    case 'rateLimit':
      // Served as whole seconds, at least one (`Retry-After: 0` would invite a storm).
      return {
        kind: 'rateLimit',
        retryAfterSeconds: Math.ceil(numberField(body, 'retryAfterSeconds', 1, 3600) ?? 1),
      };
    case 'resetBeforeApply':
    case 'resetAfterApply':
    case 'sessionExpiry':
    case 'ws_drop':
      return { kind: body.kind };
    default:
      throw new ControlError(
        400,
        '"kind" must be one of latency, error, rateLimit, resetBeforeApply, resetAfterApply, sessionExpiry, ws_drop',
      );
  }
}

export class Faults {
  private faults: Fault[] = [];
  private nextId = 1;

  /** Parses a POST /_sim/faults body; `resolveScope` turns the account field into a creator. */
  parse(body: unknown, resolveScope: (account: string) => FaultScope | null): Fault {
    if (!isRecord(body)) throw new ControlError(400, 'body must be a JSON object');
    const effect = parseEffect(body);
    checkFields(body);
    let scope: FaultScope | null = null;
    if (body.account !== undefined && body.account !== null) {
      if (typeof body.account !== 'string')
        throw new ControlError(400, '"account" must be a username or platform account id');
      scope = resolveScope(body.account);
      if (!scope) throw new ControlError(400, `unknown sandbox account "${body.account}"`);
    }
    let path: string | null = null;
    if (body.path !== undefined && body.path !== null) {
      if (typeof body.path !== 'string' || !body.path.startsWith('/'))
        throw new ControlError(400, '"path" must start with "/"');
      path = body.path.startsWith('/api/') ? body.path : `${API_PREFIX}${body.path}`;
    }
    let method: string | null = null;
    if (body.method !== undefined && body.method !== null) {
      method = typeof body.method === 'string' ? body.method.toUpperCase() : '';
      if (!METHODS.includes(method))
        throw new ControlError(400, `"method" must be one of ${METHODS.join(', ')}`);
    }
    const count = numberField(body, 'count', 1, 1_000_000);
    const durationMs = numberField(body, 'durationMs', 1, 86_400_000);
    const now = Date.now();
    return {
      id: `flt_${this.nextId++}`,
      effect,
      scope,
      path,
      method,
      remaining: count === undefined ? null : Math.floor(count),
      expiresAt: durationMs === undefined ? null : now + durationMs,
      createdAt: now,
      applied: 0,
    };
  }

  add(fault: Fault): void {
    this.faults.push(fault);
  }

  list(): Fault[] {
    this.prune(Date.now());
    return this.faults;
  }

  remove(id: string): boolean {
    // A fault that has run its count or its time is gone already: 404, like an unknown one.
    this.prune(Date.now());
    const before = this.faults.length;
    this.faults = this.faults.filter((fault) => fault.id !== id);
    return this.faults.length < before;
  }

  clear(): void {
    this.faults = [];
  }

  /** POST /_sim/reset: no faults, and ids start again. */
  reset(): void {
    this.faults = [];
    this.nextId = 1;
  }

  /** Faults still in effect. */
  get size(): number {
    this.prune(Date.now());
    return this.faults.length;
  }

  private prune(now: number): void {
    if (this.faults.some((f) => (f.expiresAt !== null && f.expiresAt <= now) || f.remaining === 0)) {
      this.faults = this.faults.filter(
        (f) => !((f.expiresAt !== null && f.expiresAt <= now) || f.remaining === 0),
      );
    }
  }

  /**
   * Faults for one request: latencies add up; the first matching terminal fault (error that
   * fires, rateLimit, reset) decides the outcome. A fault's count drops only when it acts.
   */
  match(creator: number | null, method: string, path: string, now: number): FaultOutcome {
    const outcome: FaultOutcome = { latencyMs: 0, terminal: null, applied: 0 };
    if (this.faults.length === 0) return outcome;
    this.prune(now);
    for (const fault of this.faults) {
      if (fault.scope && fault.scope.creator !== creator) continue;
      if (fault.path && !path.startsWith(fault.path)) continue;
      if (fault.method && fault.method !== method) continue;
      const effect = fault.effect;
      if (effect.kind === 'sessionExpiry' || effect.kind === 'ws_drop') continue;
      if (effect.kind === 'latency') {
        outcome.latencyMs += effect.minMs + Math.random() * (effect.maxMs - effect.minMs);
      } else {
        if (outcome.terminal) continue;
        if (effect.kind === 'error' && Math.random() >= effect.rate) continue;
        outcome.terminal = fault;
      }
      fault.applied += 1;
      outcome.applied += 1;
      if (fault.remaining !== null) fault.remaining -= 1;
    }
    return outcome;
  }

  /**
   * Whether a ws_drop fault refuses a realtime connection of `creator` now; a refusal uses up one
   * of its `count`.
   */
  refusesRealtime(creator: number, now: number): Fault | null {
    if (this.faults.length === 0) return null;
    this.prune(now);
    const fault = this.faults.find(
      (f) => f.effect.kind === 'ws_drop' && (f.scope === null || f.scope.creator === creator),
    );
    if (!fault) return null;
    fault.applied += 1;
    if (fault.remaining !== null) fault.remaining -= 1;
    return fault;
  }
}

export function describeFault(fault: Fault): Record<string, unknown> {
  return {
    id: fault.id,
    ...fault.effect,
    account: fault.scope ? fault.scope.username : null,
    platformAccountId: fault.scope ? fault.scope.accountId : null,
    path: fault.path,
    method: fault.method,
    remaining: fault.remaining,
    expiresAt: fault.expiresAt,
    createdAt: fault.createdAt,
    applied: fault.applied,
  };
}
