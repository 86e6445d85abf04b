// One principal of every kind for a started service: the first administrator (a session and a
// token), users of each role (sessions; VIEWER and ANALYST too), a DISCOVERY_ADMIN token whose user no longer holds
// API_USER, an API_USER token, an integration key, and keys that must be refused.
import { ApiClient, signIn } from './api-client.js';
import { clockOf } from './test-clock.js';

export const ADMIN_USERNAME = 'admin';
export const ADMIN_PASSWORD = 'first-admin-password-42';
export const USER_PASSWORD = 'a-user-password-1234';

export interface Principals {
  anonymous: ApiClient;
  viewer: ApiClient;
  analyst: ApiClient;
  apiUserSession: ApiClient;
  apiUserToken: ApiClient;
  discoveryAdminSession: ApiClient;
  discoveryAdminToken: ApiClient;
  adminSession: ApiClient;
  adminToken: ApiClient;
  integrationKey: ApiClient;
  integrationKeyHeader: ApiClient;
  expiredKey: ApiClient;
  revokedKey: ApiClient;
  badChecksumKey: ApiClient;
  malformed: ApiClient;
  ids: Record<string, string>;
}

function expectStatus(res: { status: number; text: string }, status: number, what: string): void {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${res.text}`);
}

export async function createUser(admin: ApiClient, username: string, roles: string[]): Promise<string> {
  const res = await admin.post('/api/v1/users', { username, password: USER_PASSWORD, roles });
  expectStatus(res, 201, `create ${username}`);
  return res.body.data.id;
}

export async function createPrincipals(baseUrl: string): Promise<Principals> {
  const adminSession = await signIn(baseUrl, ADMIN_USERNAME, ADMIN_PASSWORD);
  const ids: Record<string, string> = {};
  ids.viewer = await createUser(adminSession, 'viewer', ['VIEWER']);
  ids.analyst = await createUser(adminSession, 'analyst', ['ANALYST']);
  ids.apiUser = await createUser(adminSession, 'api-user', ['API_USER']);
  ids.discoveryAdmin = await createUser(adminSession, 'discovery-admin', ['DISCOVERY_ADMIN', 'API_USER']);

  const token = async (client: ApiClient, name: string, expiresAt?: string) => {
    const res = await client.post('/api/v1/me/tokens', { name, ...(expiresAt ? { expiresAt } : {}) });
    expectStatus(res, 201, `token ${name}`);
    return res.body.data.token as string;
  };
  const apiUserSession = await signIn(baseUrl, 'api-user', USER_PASSWORD);
  const discoveryAdminSession = await signIn(baseUrl, 'discovery-admin', USER_PASSWORD);
  const discoveryToken = await token(discoveryAdminSession, 'discovery');
  // The token keeps working without API_USER, with the roles its user holds at each request.
  expectStatus(await adminSession.put(`/api/v1/users/${ids.discoveryAdmin}`, { roles: ['DISCOVERY_ADMIN'] }), 200, 'drop API_USER');

  const key = async (name: string, expiresAt?: string) => {
    const res = await adminSession.post('/api/v1/integration-keys', { name, ...(expiresAt ? { expiresAt } : {}) });
    expectStatus(res, 201, `key ${name}`);
    return { token: res.body.data.token as string, id: res.body.data.id as string };
  };
  const integration = await key('integration');
  // Just ahead on the service's own clock, then past it (below). The clock moves on with real time:
  // where a loaded machine took longer than the margin to get the request checked, the key is asked
  // for again with twice the margin, and the clock is later moved by no more than needed (the tests
  // date their observations by real time).
  const clock = clockOf(baseUrl);
  let marginMs = 1500;
  let expiring: { token: string; id: string } | undefined;
  while (!expiring) {
    const res = await adminSession.post('/api/v1/integration-keys', { name: 'expiring', expiresAt: new Date(clock.now() + marginMs).toISOString() });
    if (res.status === 409 && marginMs < 60_000) marginMs *= 2;
    else expectStatus(res, 201, 'key expiring');
    if (res.status === 201) expiring = { token: res.body.data.token as string, id: res.body.data.id as string };
  }
  const revoked = await key('revoked');
  expectStatus(await adminSession.delete(`/api/v1/integration-keys/${revoked.id}`), 200, 'revoke');
  const last = integration.token.at(-1) === 'A' ? 'B' : 'A';
  clock.advance(marginMs + 100);

  return {
    anonymous: new ApiClient(baseUrl),
    viewer: await signIn(baseUrl, 'viewer', USER_PASSWORD),
    analyst: await signIn(baseUrl, 'analyst', USER_PASSWORD),
    apiUserSession,
    apiUserToken: new ApiClient(baseUrl, { kind: 'bearer', token: await token(apiUserSession, 'api') }),
    discoveryAdminSession: await signIn(baseUrl, 'discovery-admin', USER_PASSWORD),
    discoveryAdminToken: new ApiClient(baseUrl, { kind: 'bearer', token: discoveryToken }),
    adminSession,
    adminToken: new ApiClient(baseUrl, { kind: 'bearer', token: await token(adminSession, 'admin') }),
    integrationKey: new ApiClient(baseUrl, { kind: 'bearer', token: integration.token }),
    integrationKeyHeader: new ApiClient(baseUrl, { kind: 'key-header', token: integration.token }),
    expiredKey: new ApiClient(baseUrl, { kind: 'bearer', token: expiring.token }),
    revokedKey: new ApiClient(baseUrl, { kind: 'bearer', token: revoked.token }),
    badChecksumKey: new ApiClient(baseUrl, { kind: 'bearer', token: `${integration.token.slice(0, -1)}${last}` }),
    malformed: new ApiClient(baseUrl, { kind: 'bearer', token: 'not-a-token' }),
    ids,
  };
}
