import type { Static } from 'typebox';
import type { ConnectResult } from '../define';
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
  const text = (value: unknown) => (value === undefined || value === null ? '' : String(value));
  return {
    accountId: text(session.accountId),
    deviceId: session.deviceId === undefined || session.deviceId === null ? null : String(session.deviceId),
    ip: text(session.ip),
    status: Number(session.status ?? 0),
    metadata: session.metadata ?? null,
    id: text(session.id),
    token: text(session.token),
    checkToken: session.checkToken ?? null,
  };
}
