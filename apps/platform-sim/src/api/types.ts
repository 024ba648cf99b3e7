import type { SimCore } from '../core';
import type { Query } from '../params';

/**
 * How a route authenticates and to which account its traffic is attributed:
 * none (device id), login (the username in the body), twofa (the second-factor token in the
 * body), session (the `authorization` token plus the fansly-* headers).
 */
export type AuthMode = 'none' | 'login' | 'twofa' | 'session';

export interface ApiContext {
  core: SimCore;
  /** Creator index of the caller; -1 when unknown (unauthenticated routes). */
  creator: number;
  query: Query;
  /** Path parameters (Fastify `:name` segments). */
  params: Record<string, string>;
  body: unknown;
  ip: string;
  /** Arrival time of the request (ms). */
  now: number;
  /** Arrival of the account's previous media-offer call (media-offer routes only). */
  previousMediaOfferAt: number | null;
}

export interface ApiRoute {
  method: 'GET' | 'POST';
  /** Path under /api/v1, in Fastify syntax. */
  path: string;
  /** What it does, as the README's endpoint table shows it (`pnpm run docs` writes it). */
  summary: string;
  auth: AuthMode;
  /** Changes platform state; only these are watched for duplicates (logins and step-up are not). */
  write?: boolean;
  /** The chat media-offer call, subject to the mediaOfferGapMs rule and observed for its gaps. */
  mediaOffer?: boolean;
  handler: (ctx: ApiContext) => unknown;
}
