/**
 * The platform's realtime protocol (upstream-extended.md, section 2), client side: frames are JSON
 * `{t, d}` where `d` is itself JSON text; a service event's `d` holds `{serviceId, event}` whose
 * `event` is JSON text again (`{type, <key>: object}`), sometimes once more; a batch (10001) holds
 * frames. The server may answer a ping with `t: 2` or the bare text "pong".
 */

export const FRAME_TYPES = { error: 0, session: 1, pong: 2, event: 10000, batch: 10001 } as const;

/** The ping the client sends every 20–25 s. */
export const PING = 'p';

/** One platform event: `(serviceId, type)` and the object under its type-specific key. */
export interface ServiceEvent {
  serviceId: number;
  type: number;
  /** The key the object sat under (`message`, `order`, `tip`, …). */
  key: string;
  payload: Record<string, unknown>;
}

export type Frame =
  | { kind: 'error'; code: number }
  | { kind: 'session'; session: Record<string, unknown> | null }
  | { kind: 'pong' }
  | { kind: 'event'; event: ServiceEvent }
  | { kind: 'other' };

/** The authentication frame: `d` is JSON text of `{token, v: 3}`. */
export const authFrame = (token: string): string =>
  JSON.stringify({ t: FRAME_TYPES.session, d: JSON.stringify({ token, v: 3 }) });

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** JSON text read as its value (repeatedly: the platform nests JSON in JSON); anything else as is. */
function unwrap(value: unknown): unknown {
  let current = value;
  for (let depth = 0; depth < 4 && typeof current === 'string'; depth++) {
    try {
      current = JSON.parse(current);
    } catch {
      return current;
    }
  }
  return current;
}

function serviceEvent(d: unknown): ServiceEvent | null {
  const outer = unwrap(d);
  if (!isObject(outer)) return null;
  const inner = unwrap(outer.event);
  if (!isObject(inner)) return null;
  const serviceId = Number(outer.serviceId);
  const type = Number(inner.type);
  if (!Number.isInteger(serviceId) || !Number.isInteger(type)) return null;
  const key = Object.keys(inner).find((name) => name !== 'type' && isObject(unwrap(inner[name])));
  if (key === undefined) return null;
  return { serviceId, type, key, payload: unwrap(inner[key]) as Record<string, unknown> };
}

function decodeOne(value: unknown): Frame[] {
  const frame = unwrap(value);
  if (frame === 'pong') return [{ kind: 'pong' }];
  if (!isObject(frame)) return [{ kind: 'other' }];
  switch (Number(frame.t)) {
    case FRAME_TYPES.error: {
      const d = unwrap(frame.d);
      return [{ kind: 'error', code: isObject(d) ? Number(d.code) : 0 }];
    }
    case FRAME_TYPES.session: {
      const d = unwrap(frame.d);
      return [{ kind: 'session', session: isObject(d) && isObject(d.session) ? d.session : null }];
    }
    case FRAME_TYPES.pong:
      return [{ kind: 'pong' }];
    case FRAME_TYPES.event: {
      const event = serviceEvent(frame.d);
      return [event ? { kind: 'event', event } : { kind: 'other' }];
    }
    case FRAME_TYPES.batch: {
      const items = unwrap(frame.d);
      return Array.isArray(items) ? items.flatMap(decodeOne) : [{ kind: 'other' }];
    }
    default:
      return [{ kind: 'other' }];
  }
}

/** The frames a websocket message carries (a batch carries several); unknown ones as `other`. */
export function decodeFrames(text: string): Frame[] {
  return decodeOne(text);
}
