import { ErrorCode, invalidField, notAllowed, SimError } from '../errors';
import { Kind } from '../ids';
import { bodyObject, bodyString, requiredBodyString } from '../params';
import type { ApiContext, ApiRoute } from './types';

const BAD_CREDENTIALS = 'Incorrect username or password.';
/** How a second-factor code reaches the account holder (the login challenge's `type`). */
const TWOFA_TYPE_APP = 0;
const TWOFA_TYPE_EMAIL = 2;

function codeField(body: Record<string, unknown>): string {
  const code = body.code;
  if (typeof code === 'number' && Number.isInteger(code)) return String(code);
  return requiredBodyString(body, 'code', 32).trim();
}

function login(ctx: ApiContext): unknown {
  const body = bodyObject(ctx.body);
  const username = requiredBodyString(body, 'username', 200);
  const password = bodyString(body, 'password', { required: true, allowEmpty: true, maxLength: 200 }) ?? '';
  const deviceId = bodyString(body, 'deviceId', { maxLength: 64 }) ?? null;
  const { world, sessions, config } = ctx.core;
  const creator = world.directory.indexOf(username);
  if (creator < 0 || world.identity(creator).password !== password) {
    throw new SimError(400, ErrorCode.badCredentials, BAD_CREDENTIALS);
  }
  if (world.identity(creator).twofaCode !== null) {
    return { twofa: sessions.startTwofa(creator, deviceId, config.twofaTokenTtlMs) };
  }
  return { session: sessions.create(creator, deviceId, ctx.ip) };
}

function loginTwofa(ctx: ApiContext): unknown {
  const body = bodyObject(ctx.body);
  const token = requiredBodyString(body, 'token', 200);
  return ctx.core.sessions.completeTwofa(token, codeField(body), ctx.ip);
}

/** The creator's second-factor code; an account without one is refused every step-up (403 code 20). */
function stepUpCode(ctx: ApiContext): string {
  const code = ctx.core.world.identity(ctx.creator).twofaCode;
  if (code === null) throw notAllowed('Two-factor authentication is not enabled for this account.');
  return code;
}

/**
 * Starts a sensitive-action check (GUESS, docs/upstream-decisions.md, step-up send): the code comes
 * from the authenticator app (`type` 0), or by e-mail with `useEmailTwoFAFallback` (`type` 2, the
 * masked address). The sandbox's code is the account's login code (fixtures `twofaCode`).
 */
function startStepUp(ctx: ApiContext): unknown {
  const body = bodyObject(ctx.body);
  const byEmail = body.useEmailTwoFAFallback ?? false;
  if (typeof byEmail !== 'boolean') throw invalidField('useEmailTwoFAFallback');
  stepUpCode(ctx);
  const token = ctx.core.stepUps.challenge(ctx.creator, ctx.core.config.twofaTokenTtlMs, ctx.now);
  const email = byEmail ? ctx.core.world.identity(ctx.creator).maskedEmail : null;
  return { token, type: byEmail ? TWOFA_TYPE_EMAIL : TWOFA_TYPE_APP, email };
}

/**
 * Verifies a sensitive-action code (GUESS, step-up verify): `{token, code, mode?}` → `{token}`, the
 * grant a payout deletion takes as `twofa.token` (with the same code). `mode` is not read.
 */
function verifyStepUp(ctx: ApiContext): unknown {
  const body = bodyObject(ctx.body);
  const expected = stepUpCode(ctx);
  const token = requiredBodyString(body, 'token', 200);
  const { stepUps, config } = ctx.core;
  return {
    token: stepUps.verify(ctx.creator, token, codeField(body), expected, config.twofaTokenTtlMs, ctx.now),
  };
}

export const authRoutes: ApiRoute[] = [
  {
    method: 'GET',
    path: '/device/id',
    summary: 'A fresh device id (a snowflake string) at each call.',
    auth: 'none',
    handler: (ctx) => ctx.core.world.ids.next(Kind.device),
  },
  {
    method: 'POST',
    path: '/login',
    summary:
      '`{username (or e-mail), password, deviceId?}` → `{session}`, or for a second-factor account `{twofa: {token, email}}` (e-mail masked), no session. Missing field: 400 code 10; wrong credentials: 400 code 1.',
    auth: 'login',
    handler: login,
  },
  {
    method: 'POST',
    path: '/login/twofa',
    summary:
      '`{token, code}` (code a string or a number) → the session itself. Wrong code: 400 code 2, the token stays usable; unknown, expired (`twofaTokenTtlMs`) or already used token: 400 code 3.',
    auth: 'twofa',
    handler: loginTwofa,
  },
  {
    method: 'POST',
    path: '/twofa/session',
    summary:
      "**GUESS.** A sensitive-action challenge: `{useEmailTwoFAFallback?}` (a boolean; else 400 code 10) → `{token, type, email}`: `type` 0 (the app, `email` null), or 2 by e-mail (the masked address). Its code is the account's login code (fixtures `twofaCode`). An account without a second factor: 403 code 20.",
    auth: 'session',
    handler: startStepUp,
  },
  {
    method: 'POST',
    path: '/twofa/session/verify',
    summary:
      "**GUESS** (the answer). `{token, code, mode?}` → `{token}`: a grant a payout deletion takes once as `twofa.token` with the same code. The challenge is spent; unknown or another account's: 404; expired (`twofaTokenTtlMs`): 400 code 3; wrong code: 400 code 2, the challenge stays usable; an account without a second factor: 403 code 20.",
    auth: 'session',
    handler: verifyStepUp,
  },
];
