import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { fromProjectRoot } from '../../src/platform/project-root.js';
import type { ApiClient } from '../support/api-client.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

type Role = 'ADMINISTRATOR' | 'DISCOVERY_ADMIN' | 'API_USER' | 'ANALYST' | 'VIEWER';
// SCANNER: the operations of remote scanners, which only a scanner token (svcs_) may call: none of the holders below.
type Rule = 'PUBLIC' | 'SIGNED_IN' | 'SCANNER' | Role[];

// The access rules of docs/interface.md (decision 3) and of the issue, written out here independently of
// api.yaml; the first test checks that api.yaml has no operation this table does not cover.
const DISCOVERY: Role[] = ['DISCOVERY_ADMIN', 'ADMINISTRATOR'];
const ADMIN: Role[] = ['ADMINISTRATOR'];
const RULES: Record<string, Rule> = {
  getHealth: 'PUBLIC',
  getReadiness: 'PUBLIC',
  getLiveness: 'PUBLIC',
  getMetrics: ADMIN,
  login: 'PUBLIC',
  logout: 'SIGNED_IN',
  getMe: 'SIGNED_IN',
  changeMyPassword: 'SIGNED_IN',
  listMyTokens: 'SIGNED_IN',
  createMyToken: ['API_USER'],
  revokeMyToken: 'SIGNED_IN',
  listUsers: ADMIN,
  createUser: ADMIN,
  getUser: ADMIN,
  updateUser: ADMIN,
  deleteUser: ADMIN,
  listUserTokens: ADMIN,
  revokeUserToken: ADMIN,
  listIntegrationKeys: ADMIN,
  createIntegrationKey: ADMIN,
  revokeIntegrationKey: ADMIN,
  listAuditEvents: ADMIN,
  listScanners: ADMIN,
  createScanner: ADMIN,
  revokeScanner: ADMIN,
  claimScannerChunk: 'SCANNER',
  reportScannerChunk: 'SCANNER',
  pinScannerHostKey: 'SCANNER',
  countScannerChunkHost: 'SCANNER',
  listAuditActions: ADMIN,
  listCredentialKinds: DISCOVERY,
  listCredentials: DISCOVERY,
  createCredential: DISCOVERY,
  getCredential: DISCOVERY,
  updateCredential: DISCOVERY,
  deleteCredential: DISCOVERY,
  listCredentialTargets: DISCOVERY,
  testCredential: DISCOVERY,
  listAssets: 'SIGNED_IN',
  listAssetValues: 'SIGNED_IN',
  searchInventory: 'SIGNED_IN',
  getAsset: 'SIGNED_IN',
  listAssetRelationships: 'SIGNED_IN',
  getAssetProvenance: 'SIGNED_IN',
  getAssetHistory: 'SIGNED_IN',
  listChanges: 'SIGNED_IN',
  decommissionAsset: DISCOVERY,
  reactivateAsset: DISCOVERY,
  listRelationships: 'SIGNED_IN',
  getTopologyNeighbors: 'SIGNED_IN',
  getTopologyChanges: 'SIGNED_IN',
  runGraphQuery: ['ANALYST', 'DISCOVERY_ADMIN', 'ADMINISTRATOR'],
  listAssetTypes: 'SIGNED_IN',
  getAssetType: 'SIGNED_IN',
  importBundle: DISCOVERY,
  runJob: ADMIN,
  listDiscoveryMethods: DISCOVERY,
  listTargets: DISCOVERY,
  createTarget: DISCOVERY,
  getTarget: DISCOVERY,
  updateTarget: DISCOVERY,
  deleteTarget: DISCOVERY,
  scanTarget: DISCOVERY,
  listRuns: 'SIGNED_IN',
  getRun: 'SIGNED_IN',
  listRunHosts: 'SIGNED_IN',
  listRunChunks: 'SIGNED_IN',
  cancelRun: DISCOVERY,
  acceptPin: DISCOVERY,
  getRunDiagnosis: 'SIGNED_IN',
  diagnoseRun: DISCOVERY,
  getRunAlert: 'SIGNED_IN',
  listInsightFeeds: 'SIGNED_IN',
  getInsightFeed: 'SIGNED_IN',
  getFlowTopTalkers: 'SIGNED_IN',
  getFlowConversations: 'SIGNED_IN',
  listFlowExporters: 'SIGNED_IN',
  getFlowExporterSeries: 'SIGNED_IN',
  listSavedViews: 'SIGNED_IN',
  createSavedView: 'SIGNED_IN',
  getSavedView: 'SIGNED_IN',
  updateSavedView: 'SIGNED_IN',
  deleteSavedView: 'SIGNED_IN',
  ...Object.fromEntries(
    ['Assets', 'Relationships', 'Software', 'Processes', 'Services', 'Interfaces', 'InterfaceConnections'].flatMap((d) => ['Csv', 'Json'].map((f) => [`export${d}${f}`, ['API_USER', 'DISCOVERY_ADMIN', 'ADMINISTRATOR'] as Role[]])),
  ),
};

// What each caller holds (effective roles: ADMINISTRATOR includes DISCOVERY_ADMIN).
const HOLDS: Record<string, Role[] | 'ALL' | 'REFUSED'> = {
  anonymous: [],
  viewer: ['VIEWER'],
  analyst: ['ANALYST'],
  apiUserSession: ['API_USER'],
  apiUserToken: ['API_USER'],
  discoveryAdminSession: ['DISCOVERY_ADMIN'],
  discoveryAdminToken: ['DISCOVERY_ADMIN'],
  adminSession: ['ADMINISTRATOR', 'DISCOVERY_ADMIN', 'API_USER'],
  adminToken: ['ADMINISTRATOR', 'DISCOVERY_ADMIN', 'API_USER'],
  integrationKey: 'ALL',
  integrationKeyHeader: 'ALL',
  expiredKey: 'REFUSED',
  revokedKey: 'REFUSED',
  badChecksumKey: 'REFUSED',
  malformed: 'REFUSED',
};

interface Operation {
  id: string;
  method: string;
  path: string;
}

function operations(): Operation[] {
  const doc = parse(readFileSync(fromProjectRoot('api.yaml'), 'utf8')) as { paths: Record<string, Record<string, { operationId?: string }>> };
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (['get', 'post', 'put', 'delete', 'patch'].includes(method)) ops.push({ id: op.operationId as string, method: method.toUpperCase(), path });
    }
  }
  return ops;
}

function admitted(rule: Rule, holds: Role[] | 'ALL'): boolean {
  if (rule === 'SCANNER') return false;
  if (rule === 'PUBLIC' || rule === 'SIGNED_IN' || holds === 'ALL') return true;
  return rule.some((r) => holds.includes(r));
}

const ALLOWED_OUTCOMES = [200, 201, 204, 400, 404, 409];

describe('access control of every operation of api.yaml', () => {
  let service: TestService;
  let principals: Principals;
  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    principals = await createPrincipals(service.url);
  });
  afterAll(() => service.stop());

  it('has an access rule for every operation', () => {
    expect(operations().map((o) => o.id).sort()).toEqual(Object.keys(RULES).sort());
  });

  // Sign-out ends sessions: it is called last.
  const ordered = () => operations().sort((a, b) => Number(a.id === 'logout') - Number(b.id === 'logout'));

  it('answers each caller by the role rules: 401 without a valid credential, 403 without the role, and through otherwise', async () => {
    const mismatches: string[] = [];
    for (const op of ordered()) {
      const rule = RULES[op.id] as Rule;
      const path = op.path.replace(/\{[^}]+\}/g, () => randomUUID());
      const body = op.method === 'POST' || op.method === 'PUT' ? {} : undefined;
      for (const [name, holds] of Object.entries(HOLDS)) {
        const client = principals[name as keyof Principals] as ApiClient;
        const res = await client.call(op.method, path, body);
        let ok: boolean;
        if (rule === 'PUBLIC') {
          ok = holds === 'REFUSED' ? [200, 400, 401].includes(res.status) : ![401, 403].includes(res.status);
        } else if (holds === 'REFUSED' || (Array.isArray(holds) && holds.length === 0)) {
          ok = res.status === 401 && res.headers.get('www-authenticate') === 'Bearer';
        } else {
          ok = admitted(rule, holds) ? ALLOWED_OUTCOMES.includes(res.status) : res.status === 403;
        }
        if (!ok) mismatches.push(`${op.method} ${op.path} as ${name}: ${res.status} ${res.text.slice(0, 200)}`);
      }
    }
    expect(mismatches).toEqual([]);
    // Every operation as every caller, one request at a time: generous on a shared, loaded machine.
  }, 300_000);

  it('gives one answer for every kind of refused credential, and audits each with its reason', async () => {
    const answers = await Promise.all(
      (['anonymous', 'expiredKey', 'revokedKey', 'badChecksumKey', 'malformed'] as const).map((n) => principals[n].get('/api/v1/me')),
    );
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([401]));
    expect(new Set(answers.map((a) => a.body.detail)).size).toBe(1);
    const audit = await principals.adminToken.get('/api/v1/audit-events?action=auth.failure&size=1000');
    const reasons = new Set(audit.body.data.map((e: { details: { reason: string } }) => e.details.reason));
    for (const reason of ['expired', 'revoked', 'malformed-or-bad-checksum']) expect(reasons).toContain(reason);
  });

  it('takes an integration key in X-Integration-Api-Key but not a user token there', async () => {
    expect((await principals.integrationKeyHeader.get('/api/v1/me')).body.data).toMatchObject({ kind: 'INTEGRATION_KEY', method: 'INTEGRATION_KEY' });
    const token = (principals.apiUserToken.credential as { token: string }).token;
    const res = await principals.anonymous.call('GET', '/api/v1/me', undefined, { 'x-integration-api-key': token });
    expect(res.status).toBe(401);
  });

  it('never takes a credential from the query string', async () => {
    const token = (principals.integrationKey.credential as { token: string }).token;
    for (const name of ['access_token', 'api_key', 'token']) {
      const res = await principals.anonymous.get(`/api/v1/me?${name}=${token}`);
      expect([400, 401]).toContain(res.status);
    }
  });
});
