// Sign-in, and where it leads: back to the page that asked for it (`next`), within this app only.
import { useState } from 'react';
import { Navigate, useSearchParams } from 'react-router';
import { ApiError } from '../api';
import { ErrorBox, Field, usePageTitle } from '../components/ui';
import { useSession } from '../session';

/**
 * Once signed in, /login leads to its `next` when that is a path of this origin: a link someone
 * shared survives the sign-in, and an address elsewhere ("https://…", "//…") is never followed.
 */
export function SignedInRedirect() {
  const [params] = useSearchParams();
  const asked = params.get('next') ?? '';
  // Parsed as the browser would: "/\host" and "/<tab>/host" name another host too.
  const next = asked.startsWith('/') ? new URL(asked, window.location.origin) : undefined;
  return <Navigate to={next?.origin === window.location.origin ? `${next.pathname}${next.search}${next.hash}` : '/assets'} replace />;
}

export function LoginPage() {
  usePageTitle('Sign in');
  const { signIn } = useSession();
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
            // The app then shows /login as SignedInRedirect, which leads on.
            await signIn(username, password);
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
