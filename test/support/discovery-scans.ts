// What the discovery tests through the API share: a scan run to its end, an asset's custom
// attributes, and a service whose discovery admin has the lab's SSH password credential.
import type { ApiClient } from './api-client.js';
import { eventually } from './eventually.js';
import { ADMIN_PASSWORD, createPrincipals } from './principals.js';
import { startTestService, type TestService } from './test-stores.js';
import { SCAN_PASSWORD, SCAN_USER, SUBNET } from '../../src/tools/lab/lab-network.js';

export interface AssetRow {
  id: string;
  displayName: string;
  assetType: string;
  status: string;
  parent?: { id: string; displayName: string; assetType: string; via: string };
  [field: string]: unknown;
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
