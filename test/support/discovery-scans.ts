// What the discovery tests through the API share: a scan run to its end, an asset's custom
// attributes, and a service whose discovery admin has the lab's SSH password credential.
import type { ApiClient } from './api-client.js';
import { eventually } from './eventually.js';
import { ADMIN_PASSWORD, createPrincipals } from './principals.js';
import { startTestService, type TestService } from './test-stores.js';
import { networkUnavailable, SCAN_PASSWORD, SCAN_USER, SUBNET } from '../../src/tools/lab/lab-network.js';

export interface AssetRow {
  id: string;
  displayName: string;
  assetType: string;
  status: string;
  parent?: { id: string; displayName: string; assetType: string; via: string };
  [field: string]: unknown;
}

export interface RelationshipRow {
  relationshipType: string;
  sourceDisplayName: string;
  targetDisplayName: string;
  [field: string]: unknown;
}

/** The types a cloud connector (AWS, AZURE) loads. */
const CLOUD_TYPES = 'CLOUD_ACCOUNT,CLOUD_REGION,CLOUD_DATABASE,CLOUD_STORAGE,CLOUD_LOAD_BALANCER,CLOUD_STACK,VM,NETWORK';

/**
 * A cloud connector's estate read back through the API: its assets, its CONTAINS and
 * COMMUNICATES_WITH edges as `TYPE source -> target`, an asset's status by name. The client is
 * asked for at each read (a test makes it in beforeAll).
 */
export function cloudEstate(client: () => ApiClient) {
  const assets = async (): Promise<AssetRow[]> => {
    const res = await client().get(`/api/v1/assets?type=${CLOUD_TYPES}&size=1000`);
    expect(res.status).toBe(200);
    return res.body.data;
  };
  const relationships = async (): Promise<RelationshipRow[]> => {
    const res = await client().get('/api/v1/relationships?type=CONTAINS,COMMUNICATES_WITH&size=1000');
    expect(res.status).toBe(200);
    return res.body.data;
  };
  const tuples = (rows: RelationshipRow[]) => new Set(rows.filter((r) => r.active !== false).map((r) => `${r.relationshipType} ${r.sourceDisplayName} -> ${r.targetDisplayName}`));
  const statusOf = async (name: string, type?: string) => (await assets()).find((a) => a.displayName === name && (!type || a.assetType === type))?.status;
  return { assets, relationships, tuples, statusOf };
}

/** `describe` where the lab network can be built (root, its tools), else `describe.skip`, saying that `what` was not run and why. */
export async function describeInLab(what: string): Promise<jest.Describe> {
  const unavailable = await networkUnavailable();
  if (unavailable) process.stderr.write(`\n${what} not run: ${unavailable}.\n`);
  return unavailable ? describe.skip : describe;
}

/** Answers the run once it has ended. */
export async function runToEnd(api: ApiClient, runId: string, timeoutMs = 300_000): Promise<Record<string, any>> {
  return eventually(async () => (await api.get(`/api/v1/discovery/runs/${runId}`)).body.data, (run) => !['QUEUED', 'RUNNING'].includes(run.status), `run ${runId} ending`, timeoutMs);
}

/** Starts a scan of the target and answers the run once it has ended. */
export async function scanToEnd(api: ApiClient, targetId: string): Promise<Record<string, any>> {
  const queued = await api.post(`/api/v1/discovery/targets/${targetId}/scan`);
  expect(queued.status).toBe(202);
  return runToEnd(api, queued.body.data.id);
}

/** An asset's custom attributes (the API serves them as a JSON text). */
export async function attributesOf(api: ApiClient, id: string): Promise<Record<string, unknown>> {
  return JSON.parse((await api.get(`/api/v1/assets/${id}`)).body.data.customAttributes);
}

/** The service, and its discovery admin's session with the lab's SSH password credential matching the lab subnet. */
export async function startLabScanService(): Promise<{ service: TestService; api: ApiClient }> {
  const service = await startTestService({ adminPassword: ADMIN_PASSWORD, discoverySweepPorts: '22', discoveryConnectTimeoutMs: 1000 });
  const api = (await createPrincipals(service.url)).discoveryAdminSession;
  const credential = await api.post('/api/v1/credentials', { name: 'scan password', kind: 'SSH_PASSWORD', matchPatterns: [`${SUBNET}.0/24`], settings: { username: SCAN_USER }, secrets: { password: SCAN_PASSWORD } });
  expect(credential.status).toBe(201);
  return { service, api };
}

/** Creates a discovery target and answers its id. */
export async function createTarget(api: ApiClient, body: Record<string, unknown>): Promise<string> {
  const target = await api.post('/api/v1/discovery/targets', body);
  expect(target.status).toBe(201);
  return target.body.data.id;
}

/** A run's error records as (address, method, stage, code), in the order the run gives them. */
export async function runErrors(api: ApiClient, runId: string): Promise<{ address: string; method: string; stage: string; code: string }[]> {
  const errors = (await api.get(`/api/v1/discovery/runs/${runId}`)).body.data.errors as { address: string; method: string; stage: string; code: string }[];
  return errors.map(({ address, method, stage, code }) => ({ address, method, stage, code }));
}

interface FactRow {
  field: string;
  value: unknown;
  source: string;
  observedAt: string;
  candidates: { source: string; value: unknown; observedAt: string }[];
}

/** A value as text with its object keys sorted (PostgreSQL's jsonb keeps its own key order). */
export const canonicalJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v));

/**
 * Every asset as a tuple (`tuple` says which fields), and every fact of every source as
 * "addresses field source value", sorted, with each fact's time apart (a rescan may move only those).
 */
export async function inventoryTuples(api: ApiClient, tuple: (asset: AssetRow) => string): Promise<{ tuples: string[]; facts: string[]; times: Record<string, string>; ids: string[] }> {
  const res = await api.get('/api/v1/assets?size=1000');
  expect(res.status).toBe(200);
  const rows = res.body.data as AssetRow[];
  const facts: string[] = [];
  const times: Record<string, string> = {};
  for (const row of rows) {
    const address = (row.ipAddresses as string[]).join(';');
    const provenance = (await api.get(`/api/v1/assets/${row.id}/provenance`)).body.data.fields as FactRow[];
    for (const f of provenance) {
      for (const c of [f, ...f.candidates]) {
        facts.push(`${address} ${f.field} ${c.source} ${canonicalJson(c.value)}`);
        times[`${address} ${f.field} ${c.source}`] = c.observedAt;
      }
    }
  }
  return { tuples: rows.map(tuple).sort(), facts: facts.sort(), times, ids: rows.map((a) => a.id).sort() };
}

/** The inventory before and after one more scan, which must end with `status`. */
export async function rescan<T>(inventory: () => Promise<T>, scan: () => Promise<Record<string, any>>, status: string): Promise<{ before: T; after: T }> {
  const before = await inventory();
  expect((await scan()).status).toBe(status);
  return { before, after: await inventory() };
}
