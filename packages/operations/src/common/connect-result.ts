import { sha256 } from '@cg/store';
import { type Static, Type } from 'typebox';
import type { ConnectResult } from '../define';
import { f, record } from './record';

/** Connection session: the contract's "result of a completed connection". */
export const ConnectionSession = record({
  accountId: f.id(),
  deviceId: f.nullableString(),
  ip: f.string(),
  status: f.number(),
  metadata: f.unknown(),
  id: f.id(),
  token: f.string('platform session token (a secret)'),
  checkToken: f.unknown(),
});

export const ConnectedData = Type.Object({
  status_code: Type.Integer(),
  account_id: Type.String(),
  data: Type.Object({ success: Type.Boolean(), response: ConnectionSession.schema }),
});

export const TwofaNeededData = Type.Object({
  status_code: Type.Integer(),
  requires_2fa: Type.Boolean(),
  twofa_token: Type.String(),
  masked_email: Type.String(),
  message: Type.String(),
});

/** Both /connect and /verify-2fa answer with one of the contract's two shapes. */
export function connectData(
  result: ConnectResult,
): Static<typeof ConnectedData> | Static<typeof TwofaNeededData> {
  if (result.kind === 'twofa') {
    return {
      status_code: 200,
      requires_2fa: true,
      twofa_token: result.twofaToken,
      masked_email: result.maskedEmail,
      message:
        'Two-factor verification required: call /verify-2fa with twoFactorToken and the code sent to the account holder',
    };
  }
  return {
    status_code: 200,
    account_id: result.accountId,
    data: { success: true, response: ConnectionSession.from(result.session) },
  };
}

/**
 * The lane of a tenant's logins to one username (trimmed, case folded, hashed with the tenant: a
 * lane name is no place for it), so that connecting one platform account over and over is paced.
 * The tenant's own: usernames are public, and another tenant's failed attempts must not fill its
 * backlog.
 */
export const loginLane = ({ body }: { body: { username: string } }, tenantId: string) =>
  `login:${sha256(`${tenantId}\n${body.username.trim().toLowerCase()}`)}`;
