import { type FormEvent, useState } from 'react';
import { describeError, gatewayClient } from '../gateway';
import { signIn } from '../session';

/** The API key, checked against `GET /keys/self` before it is kept. */
export function SignInPage(props: {
  platform: string;
  notice: string | null;
  onNotice: (notice: string | null) => void;
}) {
  const { platform, notice, onNotice } = props;
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    onNotice(null);
    try {
      await gatewayClient(key.trim(), platform).keysSelf();
      signIn(key.trim());
    } catch (error) {
      onNotice(`That key was not accepted: ${describeError(error)}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main className="sign-in">
      <h1>creator-gateway console</h1>
      <form onSubmit={(event) => void submit(event)}>
        <label>
          API key
          <input
            name="apiKey"
            type="password"
            autoComplete="off"
            required
            value={key}
            onChange={(event) => setKey(event.target.value)}
          />
        </label>
        <button type="submit" disabled={busy || key.trim() === ''}>
          Sign in
        </button>
      </form>
      {notice && (
        <p role="alert" className="error">
          {notice}
        </p>
      )}
      <p className="hint">The key is kept in this tab only, until you sign out or close it.</p>
    </main>
  );
}
