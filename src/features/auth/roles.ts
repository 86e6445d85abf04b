// Roles (docs/interface.md, decision 3). ADMINISTRATOR includes DISCOVERY_ADMIN; an integration key holds
// every role. An operation of api.yaml names the roles it admits in x-required-roles. ANALYST
// reads the inventory and runs read-only Cypher (POST /graph/query).
export const ROLES = ['ADMINISTRATOR', 'DISCOVERY_ADMIN', 'API_USER', 'ANALYST', 'VIEWER'] as const;
export type Role = (typeof ROLES)[number];

/** The roles a set of granted roles amounts to. */
export function effectiveRoles(granted: readonly Role[]): Set<Role> {
  const roles = new Set(granted);
  if (roles.has('ADMINISTRATOR')) roles.add('DISCOVERY_ADMIN');
  return roles;
}

/** A SCANNER (a remote scanner's token) holds no role: it may call only the operations made for scanners. */
export type PrincipalKind = 'USER' | 'INTEGRATION_KEY' | 'SCANNER';
export type AuthMethod = 'SESSION' | 'USER_TOKEN' | 'INTEGRATION_KEY' | 'SCANNER_TOKEN';

export interface Principal {
  kind: PrincipalKind;
  /** User id, integration key id, or scanner id (its token's). */
  id: string;
  /** User name, or the integration key's or scanner's name. */
  name: string;
  method: AuthMethod;
  roles: Set<Role>;
  /** The token or key that authenticated this request, when one did. */
  tokenId?: string;
  /** The session's CSRF token (session callers only). */
  csrfToken?: string;
}

export function allows(principal: Principal, admitted: readonly Role[]): boolean {
  return principal.kind === 'INTEGRATION_KEY' || admitted.some((role) => principal.roles.has(role));
}
