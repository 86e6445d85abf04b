// Who is signed in, with which roles: every page asks here what the caller may do, and shows only
// that (the API refuses anyway).
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { api, onUnauthorized, setCsrfToken } from './api';

export type Role = 'ADMINISTRATOR' | 'DISCOVERY_ADMIN' | 'API_USER' | 'ANALYST' | 'VIEWER';

export interface Me {
  kind: 'USER' | 'INTEGRATION_KEY';
  id: string;
  name: string;
  roles: Role[];
  csrfToken?: string;
}

interface SessionValue {
  me: Me | null | undefined;
  signIn(username: string, password: string): Promise<void>;
  signOut(): Promise<void>;
  has(...roles: Role[]): boolean;
}

const SessionContext = createContext<SessionValue | undefined>(undefined);

export function SessionProvider({ children }: { children: ReactNode }) {
  // undefined: not known yet; null: nobody signed in.
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const load = useCallback(async () => {
    try {
      const { data } = await api<{ data: Me }>('me');
      setCsrfToken(data.csrfToken);
      setMe(data);
    } catch {
      setCsrfToken(undefined);
      setMe(null);
    }
  }, []);
  useEffect(() => {
    void load();
    return onUnauthorized(() => setMe(null));
  }, [load]);
  const value = useMemo<SessionValue>(() => ({
    me,
    async signIn(username, password) {
      const { data } = await api<{ data: { csrfToken: string } }>('auth/login', { method: 'POST', body: { username, password } });
      setCsrfToken(data.csrfToken);
      await load();
    },
    async signOut() {
      await api('auth/logout', { method: 'POST' }).catch(() => undefined);
      setCsrfToken(undefined);
      setMe(null);
    },
    has: (...roles) => Boolean(me?.roles.some((r) => roles.includes(r))),
  }), [me, load]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside SessionProvider');
  return value;
}

/** Roles per kind of action, as api.yaml's x-required-roles name them. */
export const MAY = {
  lifecycle: ['DISCOVERY_ADMIN', 'ADMINISTRATOR'] as Role[],
  discovery: ['DISCOVERY_ADMIN', 'ADMINISTRATOR'] as Role[],
  export: ['API_USER', 'DISCOVERY_ADMIN', 'ADMINISTRATOR'] as Role[],
  admin: ['ADMINISTRATOR'] as Role[],
  tokens: ['API_USER'] as Role[],
  cypher: ['ANALYST', 'DISCOVERY_ADMIN', 'ADMINISTRATOR'] as Role[],
};
