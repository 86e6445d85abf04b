import { useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { ApiError } from '../api';
import { ErrorBox, Field } from '../components/ui';
import { useSession } from '../session';

export function LoginPage() {
  const { signIn } = useSession();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  return (
    <main id="main" className="login">
      <h1>Sign in</h1>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(undefined);
          try {
            await signIn(username, password);
            setPassword('');
            navigate(params.get('next') ?? '/assets', { replace: true });
          } catch (err) {
            setPassword('');
            const failure = err instanceof ApiError ? err : new ApiError(0, 'Error', String(err));
            // Too many failures: sign-in is paused, and the message says for how long.
            setError(failure.status === 429 ? new ApiError(429, 'Sign-in is paused', `${failure.detail || 'Too many failed attempts.'} Wait, then try again.`) : failure);
          } finally {
            setBusy(false);
          }
        }}
      >
        <Field label="User name">
          <input name="username" autoComplete="username" required value={username} onChange={(e) => setUsername(e.target.value)} />
        </Field>
        <Field label="Password">
          <input name="password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </Field>
        <ErrorBox error={error} />
        <button type="submit" className="primary" disabled={busy}>Sign in</button>
      </form>
    </main>
  );
}
