import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { describeError, useSession } from '../gateway';

type Credentials = { username: string; password: string; name: string; countryCode: string };
const EMPTY: Credentials = { username: '', password: '', name: '', countryCode: 'US' };

/** `POST /connect`, then `POST /verify-2fa` with the code when the platform asks for one. */
export function ConnectForm() {
  const { gw } = useSession();
  const queryClient = useQueryClient();
  const [fields, setFields] = useState<Credentials>(EMPTY);
  const [twofa, setTwofa] = useState<{ token: string; maskedEmail: string } | null>(null);
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);
  const set = (name: keyof Credentials) => (event: { target: { value: string } }) =>
    setFields({ ...fields, [name]: event.target.value });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setOutcome(null);
    try {
      const body = { ...fields, countryCode: fields.countryCode.toUpperCase() };
      const { data } =
        twofa === null
          ? await gw.connect({ body })
          : await gw.verify2fa({ body: { ...body, twoFactorToken: twofa.token, twoFactorCode: code } });
      if ('account_id' in data) {
        setOutcome({ ok: true, text: `Connected ${fields.name} (${data.account_id}).` });
        setFields(EMPTY);
        setTwofa(null);
        setCode('');
        await queryClient.invalidateQueries({ queryKey: ['accounts'] });
      } else {
        setTwofa({ token: data.twofa_token, maskedEmail: data.masked_email });
      }
    } catch (error) {
      setOutcome({ ok: false, text: describeError(error) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="panel" aria-label="Connect an account" onSubmit={(event) => void submit(event)}>
      <h2>Connect an account</h2>
      <fieldset disabled={twofa !== null}>
        <label>
          Username
          <input name="username" required value={fields.username} onChange={set('username')} />
        </label>
        <label>
          Password
          <input
            name="password"
            type="password"
            required
            value={fields.password}
            onChange={set('password')}
          />
        </label>
        <label>
          Display name
          <input name="name" required value={fields.name} onChange={set('name')} />
        </label>
        <label>
          Country
          <input
            name="countryCode"
            required
            pattern="[A-Za-z]{2}"
            maxLength={2}
            value={fields.countryCode}
            onChange={set('countryCode')}
          />
        </label>
      </fieldset>
      {twofa && (
        <label>
          Verification code (sent to {twofa.maskedEmail})
          <input
            name="twoFactorCode"
            required
            autoComplete="one-time-code"
            value={code}
            onChange={(e) => setCode(e.target.value)}
          />
        </label>
      )}
      <button type="submit" disabled={busy}>
        {twofa ? 'Verify' : 'Connect'}
      </button>
      {twofa && (
        <button type="button" onClick={() => setTwofa(null)}>
          Start again
        </button>
      )}
      {outcome && (
        <p role="status" className={outcome.ok ? 'ok' : 'error'}>
          {outcome.text}
        </p>
      )}
    </form>
  );
}
