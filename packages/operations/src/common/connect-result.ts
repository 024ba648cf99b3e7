import { sha256 } from '@cg/store';
import type { Static } from 'typebox';
import type { ConnectResult } from '../define';
import { coerce } from './coerce';
import type { ConnectedData, ConnectionSession, TwofaNeededData } from './schemas';

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
    data: { success: true, response: toSession(result.session) },
  };
}

function toSession(session: Record<string, unknown>): Static<typeof ConnectionSession> {
  const { str, nullableStr } = coerce;
  return {
    accountId: str(session.accountId),
    deviceId: nullableStr(session.deviceId),
    ip: str(session.ip),
    status: Number(session.status ?? 0),
    metadata: session.metadata ?? null,
    id: str(session.id),
    token: str(session.token),
    checkToken: session.checkToken ?? null,
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
