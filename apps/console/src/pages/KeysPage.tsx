import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { describeError, type KeyScope, useSession } from '../gateway';

type Access = KeyScope['access'];

/** The tenant's keys (admin keys only): list, create (the new key shown once), revoke. */
export function KeysPage() {
  const { gw, scope } = useSession();
  const queryClient = useQueryClient();
  const keys = useQuery({ queryKey: ['keys'], queryFn: async () => (await gw.keysList()).data });
  const revoke = useMutation({
    mutationFn: (keyId: string) => gw.keysDelete({ keyId }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['keys'] }),
  });
  const [confirming, setConfirming] = useState<string | null>(null);
  return (
    <section>
      <h1>Keys</h1>
      {keys.isError && <p className="error">{describeError(keys.error)}</p>}
      {revoke.isError && <p className="error">{describeError(revoke.error)}</p>}
      {keys.data && (
        <table>
          <thead>
            <tr>
              <th>Key</th>
              <th>Access</th>
              <th>Accounts</th>
              <th>Requests a minute</th>
              <th>Created</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {keys.data.keys.map((key) => (
              <tr key={key.keyId} data-key={key.keyId}>
                <td>
                  <strong>{key.label || '(no label)'}</strong>
                  <div className="muted mono">{key.keyId}</div>
                </td>
                <td>{key.access}</td>
                <td>{key.accounts === null ? 'every account' : key.accounts.join(', ')}</td>
                <td>{key.rpm === null ? 'default' : key.rpm === 0 ? 'unlimited' : key.rpm}</td>
                <td>{new Date(key.createdAt).toLocaleString()}</td>
                <td>
                  {key.keyId === scope.keyId ? (
                    <span className="muted">this key</span>
                  ) : confirming === key.keyId ? (
                    <span className="confirm">
                      <button
                        type="button"
                        className="danger"
                        disabled={revoke.isPending}
                        onClick={() => revoke.mutate(key.keyId, { onSettled: () => setConfirming(null) })}
                      >
                        Yes, revoke
                      </button>{' '}
                      <button type="button" onClick={() => setConfirming(null)}>
                        Cancel
                      </button>
                    </span>
                  ) : (
                    <button type="button" onClick={() => setConfirming(key.keyId)}>
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <CreateKey />
    </section>
  );
}

/** `POST /keys` with a label, access and accounts; the new key is shown here once. */
function CreateKey() {
  const { gw, scope } = useSession();
  const queryClient = useQueryClient();
  const accounts = useQuery({ queryKey: ['accounts'], queryFn: async () => (await gw.listAccounts()).data });
  const [label, setLabel] = useState('');
  const [access, setAccess] = useState<Access>('read');
  const [every, setEvery] = useState(scope.accounts === null);
  const [chosen, setChosen] = useState<string[]>([]);
  const [created, setCreated] = useState<{ keyId: string; key: string } | null>(null);
  const [copied, setCopied] = useState(false);
  const create = useMutation({
    mutationFn: () =>
      gw
        .keysCreate({ body: { label, access, accounts: every ? null : chosen } })
        .then((answer) => answer.data),
    onSuccess: async (data) => {
      setCreated({ keyId: data.keyId, key: data.key });
      setCopied(false);
      setLabel('');
      await queryClient.invalidateQueries({ queryKey: ['keys'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setCreated(null);
    create.mutate();
  };
  const toggle = (accountId: string) =>
    setChosen(chosen.includes(accountId) ? chosen.filter((id) => id !== accountId) : [...chosen, accountId]);
  const copy = async (key: string) => {
    await navigator.clipboard.writeText(key);
    setCopied(true);
  };
  return (
    <form className="panel" aria-label="Create a key" onSubmit={submit}>
      <h2>Create a key</h2>
      <label>
        Label
        <input
          name="label"
          value={label}
          maxLength={100}
          onChange={(event) => setLabel(event.target.value)}
        />
      </label>
      <label>
        Access
        <select name="access" value={access} onChange={(event) => setAccess(event.target.value as Access)}>
          <option value="read">read</option>
          <option value="write">write</option>
          <option value="admin">admin</option>
        </select>
      </label>
      <fieldset>
        <legend>Accounts</legend>
        {scope.accounts === null && (
          <label className="inline">
            <input type="checkbox" checked={every} onChange={(event) => setEvery(event.target.checked)} />{' '}
            every account
          </label>
        )}
        {!every &&
          accounts.data?.accounts.map((account) => (
            <label key={account.accountId} className="inline">
              <input
                type="checkbox"
                checked={chosen.includes(account.accountId)}
                onChange={() => toggle(account.accountId)}
              />{' '}
              {account.name} <span className="muted mono">{account.accountId}</span>
            </label>
          ))}
      </fieldset>
      <button type="submit" disabled={create.isPending || (!every && chosen.length === 0)}>
        Create key
      </button>
      {create.isError && <p className="error">{describeError(create.error)}</p>}
      {created && (
        <div className="new-key" role="status">
          <p>New key {created.keyId}: copy it now, it is not shown again.</p>
          <code data-testid="new-key">{created.key}</code>{' '}
          <button type="button" onClick={() => void copy(created.key)}>
            {copied ? 'Copied' : 'Copy'}
          </button>{' '}
          <button type="button" onClick={() => setCreated(null)}>
            Done
          </button>
        </div>
      )}
    </form>
  );
}
