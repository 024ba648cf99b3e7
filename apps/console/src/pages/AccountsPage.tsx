import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ConnectForm } from '../components/ConnectForm';
import { can, describeError, useSession } from '../gateway';
import { accountHref } from '../router';

/** Every account the key reaches, with its state and health; disconnect and connect for admin keys. */
export function AccountsPage() {
  const { gw, scope } = useSession();
  const accounts = useQuery({ queryKey: ['accounts'], queryFn: async () => (await gw.listAccounts()).data });
  return (
    <section>
      <h1>Accounts</h1>
      {accounts.isError && <p className="error">{describeError(accounts.error)}</p>}
      {accounts.data?.accounts.length === 0 && <p>No account is connected yet.</p>}
      {accounts.data && accounts.data.accounts.length > 0 && (
        <table>
          <thead>
            <tr>
              <th>Account</th>
              <th>State</th>
              <th>Country</th>
              <th>Health</th>
              {can.admin(scope) && <th />}
            </tr>
          </thead>
          <tbody>
            {accounts.data.accounts.map((account) => (
              <tr key={account.accountId} data-account={account.accountId}>
                <td>
                  <a href={accountHref(account.accountId)}>
                    <strong>{account.name}</strong>
                  </a>{' '}
                  <span className="muted">@{account.username}</span>
                  <div className="muted mono">{account.accountId}</div>
                </td>
                <td>
                  <span className={`state ${account.status}`}>{account.status}</span>
                </td>
                <td>{account.country}</td>
                <td>
                  <Health accountId={account.accountId} />
                </td>
                {can.admin(scope) && (
                  <td>
                    <Disconnect accountId={account.accountId} name={account.name} />
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {can.connect(scope) && <ConnectForm />}
    </section>
  );
}

/** `GET /accounts/{id}/status`, in one line: paused, backlog, last failure, realtime. */
function Health({ accountId }: { accountId: string }) {
  const { gw } = useSession();
  const status = useQuery({
    queryKey: ['accounts', accountId, 'status'],
    queryFn: async () => (await gw.accountStatus({ accountId })).data,
    refetchInterval: 15_000,
  });
  if (status.isError) return <span className="error">{describeError(status.error)}</span>;
  if (!status.data) return <span className="muted">…</span>;
  const { lane, platform, realtime } = status.data;
  return (
    <ul className="health">
      <li>
        {lane.pausedUntil
          ? `paused until ${time(lane.pausedUntil)} (${lane.pauseReason ?? '?'})`
          : 'not paused'}
      </li>
      <li>backlog {lane.backlog}</li>
      <li>
        {platform.lastFailure
          ? `last failure ${time(platform.lastFailure.at)}: ${platform.lastFailure.code}`
          : 'no failure'}
      </li>
      <li>
        realtime{' '}
        {realtime.held ? (realtime.connected ? 'held, connected' : 'held, not connected') : 'not held'}
      </li>
    </ul>
  );
}

/** Disconnect, after a second click that confirms it. */
function Disconnect({ accountId, name }: { accountId: string; name: string }) {
  const { gw } = useSession();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const disconnect = useMutation({
    mutationFn: () => gw.disconnectAccount({ accountId }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['accounts'] }),
  });
  if (!confirming)
    return (
      <button type="button" onClick={() => setConfirming(true)}>
        Disconnect
      </button>
    );
  return (
    <span className="confirm">
      Disconnect {name}?{' '}
      <button
        type="button"
        className="danger"
        disabled={disconnect.isPending}
        onClick={() => disconnect.mutate()}
      >
        Yes, disconnect
      </button>{' '}
      <button type="button" onClick={() => setConfirming(false)}>
        Cancel
      </button>
      {disconnect.isError && <span className="error"> {describeError(disconnect.error)}</span>}
    </span>
  );
}

const time = (iso: string) => new Date(iso).toLocaleString();
