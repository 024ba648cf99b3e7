import { createHmac, timingSafeEqual } from 'node:crypto';

/** Where the sandbox serves its CDN on its own port. */
export const CDN_PATH = '/cdn';

/**
 * The sandbox's signed CDN links, shaped like the platform's CloudFront ones (`Expires`,
 * `Key-Pair-Id`, `Signature`): the signature covers the path and the expiry, so only links the
 * sandbox handed out open, and only until they expire.
 */
export class CdnLinks {
  readonly #secret: string;
  /** Every link the world hands out is valid until a week past the anchor (Unix s). */
  readonly #expires: number;

  /**
   * @param base The links' origin and path prefix; empty until the sandbox listens when it serves
   * them itself (`useOwnOrigin`).
   */
  constructor(
    seed: number,
    anchorMs: number,
    public base: string,
  ) {
    this.#secret = `sandbox-cdn-${seed}`;
    this.#expires = Math.floor(anchorMs / 1000) + 7 * 86_400;
  }

  /** The world's link to `path`. */
  link(path: string): string {
    return this.signedUrl(path, this.#expires);
  }

  /** Serve the links from the sandbox's own port, once it knows its address. */
  useOwnOrigin(origin: string): void {
    this.base = `${origin}${CDN_PATH}`;
  }

  signedUrl(path: string, expiresSeconds: number): string {
    const signature = this.#sign(path, expiresSeconds);
    return `${this.base}${path}?ngsw-bypass=true&Expires=${expiresSeconds}&Key-Pair-Id=SIMKEYPAIR&Signature=${signature}`;
  }

  /** Whether a link to `path` is one the sandbox signed and is still valid at `nowMs`. */
  valid(path: string, expires: string | undefined, signature: string | undefined, nowMs: number): boolean {
    const seconds = Number(expires);
    if (!Number.isInteger(seconds) || seconds * 1000 < nowMs || typeof signature !== 'string') return false;
    const expected = Buffer.from(this.#sign(path, seconds));
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  #sign(path: string, expiresSeconds: number): string {
    return createHmac('sha256', this.#secret).update(`${path}\n${expiresSeconds}`).digest('hex').slice(0, 32);
  }
}
