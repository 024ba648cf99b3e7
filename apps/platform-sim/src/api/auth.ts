import { ErrorCode, notAllowed, SimError } from '../errors';
import { Kind } from '../ids';
import { bodyObject, bodyString, requiredBodyString } from '../params';
import type { ApiContext, ApiRoute } from './types';

const BAD_CREDENTIALS = 'Incorrect username or password.';

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

/** Step-up verification before sensitive actions (payout deletion). GUESS, per docs/upstream-decisions.md. */
function verifyStepUp(ctx: ApiContext): unknown {
  const body = bodyObject(ctx.body);
  const identity = ctx.core.world.identity(ctx.creator);
  if (identity.twofaCode === null)
    throw notAllowed('Two-factor authentication is not enabled for this account.');
  bodyString(body, 'token', { maxLength: 200 });
  if (codeField(body) !== identity.twofaCode)
    throw new SimError(400, ErrorCode.wrongTwofaCode, 'Invalid two-factor code.');
  return { token: ctx.core.world.ids.next(Kind.stepUp) };
}

export const authRoutes: ApiRoute[] = [
  { method: 'GET', path: '/device/id', auth: 'none', handler: (ctx) => ctx.core.world.ids.next(Kind.device) },
  { method: 'POST', path: '/login', auth: 'login', handler: login },
  { method: 'POST', path: '/login/twofa', auth: 'twofa', handler: loginTwofa },
  { method: 'POST', path: '/twofa/session/verify', auth: 'session', handler: verifyStepUp },
];
