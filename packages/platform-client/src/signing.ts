import { Buffer } from 'node:buffer';

/**
 * cyrb53, the 53-bit string hash the platform's web bundle signs requests with (upstream-protocol.md).
 * Works on UTF-16 code units like the browser's `charCodeAt`; every signed input is ASCII anyway.
 */
export function cyrb53(str: string, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < str.length; i++) {
    const ch = str.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/**
 * The `fansly-client-check` header. `pathname` is what goes on the wire, `/api/v1` included and the query
 * excluded, because that is what the web client hashes.
 */
export function clientCheck(checkKey: string, pathname: string, deviceId: string): string {
  return cyrb53(`${checkKey}_${pathname}_${deviceId}`).toString(16);
}

export interface ClientTimestampOptions {
  /** @defaultValue `Date.now` */
  now?: () => number;
  /** @defaultValue `Math.random` */
  random?: () => number;
}

/**
 * `fansly-client-ts` values: the web client sends its clock jittered by up to ±5 s and never lets the value
 * go backwards, so a client that did would look unlike the browser it imitates.
 */
export class ClientTimestamp {
  readonly #now: () => number;
  readonly #random: () => number;
  #last = Number.NEGATIVE_INFINITY;

  constructor(options: ClientTimestampOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#random = options.random ?? Math.random;
  }

  next(): number {
    const candidate = this.#now() + (5000 - Math.floor(10000 * this.#random()));
    this.#last = Math.max(this.#last, candidate);
    return this.#last;
  }
}

/**
 * The `fansly-session-id` header: the first field of the base64-decoded token `<sessionId>:1:2:<hash>`.
 * Returns undefined when the token does not have that shape, so the caller can refuse to send it.
 */
export function sessionIdFromToken(token: string): string | undefined {
  if (token.length === 0 || !/^[A-Za-z0-9+/_-]+=*$/.test(token)) return undefined;
  const fields = Buffer.from(token, 'base64').toString('utf8').split(':');
  const first = fields[0];
  if (fields.length < 2 || first === undefined || !/^[A-Za-z0-9_-]+$/.test(first)) return undefined;
  return first;
}
