// Profile: the user's own API tokens (with the API_USER role) and their password.
import { useState } from 'react';
import { api, ApiError } from '../api';
import { ErrorBox, Field, usePageTitle } from '../components/ui';
import { MAY, useSession } from '../session';
import { TokenManager } from './admin-page';

function Password() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [error, setError] = useState<ApiError>();
  const [done, setDone] = useState(false);
  return (
    <form
      className="card"
      onSubmit={async (e) => {
        e.preventDefault();
        setError(undefined);
        setDone(false);
        try {
          await api('me/password', { method: 'PUT', body: { currentPassword: current, newPassword: next } });
          setDone(true);
        } catch (err) {
          setError(err as ApiError);
        } finally {
          setCurrent('');
          setNext('');
        }
      }}
    >
      <h2>Password</h2>
      <Field label="Current password"><input type="password" autoComplete="current-password" required value={current} onChange={(e) => setCurrent(e.target.value)} /></Field>
      <Field label="New password (12 characters or more)"><input type="password" autoComplete="new-password" required minLength={12} value={next} onChange={(e) => setNext(e.target.value)} /></Field>
      <ErrorBox error={error} />
      {done && <p className="notice" role="status">The password was changed.</p>}
      <button type="submit" className="primary">Change password</button>
    </form>
  );
}

export function ProfilePage() {
  usePageTitle('Profile');
  const { me, has } = useSession();
  return (
    <section>
      <h1>Profile</h1>
      <p>{me?.name} — roles {me?.roles.join(', ')}</p>
      {me?.kind === 'USER' && <Password />}
      {has(...MAY.tokens) ? (
        <TokenManager title="API tokens" path="me/tokens" createLabel="Create token" />
      ) : (
        <p className="muted">API tokens need the API_USER role.</p>
      )}
    </section>
  );
}
