// Discovery of a Kubernetes cluster (method KUBERNETES) against a test double of the API server
// (src/tools/kubernetes/kubernetes-double.ts: HTTPS, the real paths, limit/continue pagination, Status
// objects, the published examples of test/fixtures/kubernetes/) through the service's API: the
// cluster, nodes and running containers as sets of tuples with the spec's parent rules, services
// and ingresses as the cluster's discovered services, a rescan that changes only seen-times, a
// removed pod's container retired only after a complete read, an expired continue token, wrong
// token, an unreachable API server, and the certificate checked and pinned.
import type { ApiClient } from '../support/api-client.js';
import { scanToEnd, type AssetRow } from '../support/discovery-scans.js';
import { freePort } from '../support/free-port.js';
import { ADMIN_PASSWORD, createPrincipals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';
import { KubernetesDouble } from '../../src/tools/kubernetes/kubernetes-double.js';

const TOKEN = 'eyJhbGciOiJSUzI1NiIsImtpZCI6ImRvdWJsZSJ9.inventory-reader';
const TEST_TIMEOUT_MS = 300_000;
const TYPES = 'CLUSTER,SERVER,VM,CONTAINER';
// The fixtures' objects (the Kubernetes documentation's node kube-worker-1 and its pod), as the tuples the inventory must show.
const WORKER = 'kube-worker-1';
const POD = 'nginx-deployment-67d4bdd6f5-w6kd7';
const CONTAINERS = {
  [`${POD}/nginx`]: { node: WORKER, id: '5403af59a2b46ee5a23fb0ae4b1e077f7ca5c5fb7af16e1ab21c00e0e616462a' },
};

describe('discovery of a Kubernetes cluster (API server double)', () => {
  let k8s: KubernetesDouble;
  let service: TestService;
  let api: ApiClient;
  let credentialId: string;
  let targetId: string;

  beforeAll(async () => {
    k8s = await new KubernetesDouble(TOKEN).start();
    service = await startTestService({ adminPassword: ADMIN_PASSWORD, discoveryConnectTimeoutMs: 2000 });
    api = (await createPrincipals(service.url)).discoveryAdminSession;
    const credential = await api.post('/api/v1/credentials', { name: 'cluster reader', kind: 'KUBERNETES_TOKEN', matchPatterns: [], settings: { caCertificate: k8s.certificate }, secrets: { token: TOKEN } });
    expect(credential.body).toMatchObject({ data: { kind: 'KUBERNETES_TOKEN' } });
    credentialId = credential.body.data.id;
    // A page of 1: every list takes several requests with continue tokens.
    const target = await api.post('/api/v1/discovery/targets', {
      name: 'cluster', addresses: ['127.0.0.1'], methods: ['SWEEP', 'KUBERNETES'], credentialIds: [credentialId], ports: { KUBERNETES: k8s.port }, settings: { KUBERNETES: { pageSize: 1 } },
    });
    expect(target.status).toBe(201);
    targetId = target.body.data.id;
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    await k8s?.stop();
  });

  const scan = (id: string) => scanToEnd(api, id);
  const errorsOf = async (runId: string) => (await api.get(`/api/v1/discovery/runs/${runId}`)).body.data.errors;
  const assets = async (): Promise<AssetRow[]> => {
    const res = await api.get(`/api/v1/assets?type=${TYPES}&size=1000`);
    expect(res.status).toBe(200);
    return res.body.data;
  };
  const attributes = async (id: string) => JSON.parse((await api.get(`/api/v1/assets/${id}`)).body.data.customAttributes);
  const relationships = async () => {
    const res = await api.get('/api/v1/relationships?type=CONTAINS,HOSTS_CONTAINER&size=1000');
    expect(res.status).toBe(200);
    return new Set(res.body.data.map((r: Record<string, string>) => `${r.relationshipType} ${r.sourceDisplayName} -> ${r.targetDisplayName}`));
  };
  const services = async () => {
    const res = await api.get('/api/v1/assets?type=DISCOVERED_SERVICE&size=1000');
    expect(res.status).toBe(200);
    return new Set<string>(res.body.data.map((s: AssetRow) => `${s.displayName} on ${s.parent?.displayName} ${JSON.stringify(JSON.parse(s.customAttributes as string).listen_ports)}`));
  };
  const sorted = <T>(values: Iterable<T>) => [...values].sort();
  const active = (rows: AssetRow[]) => rows.filter((a) => a.status === 'ACTIVE');

  it("gives exactly the double's cluster, nodes, running containers, services and ingresses, with the spec's parent rules", async () => {
    const run = await scan(targetId);
    expect(run).toMatchObject({ status: 'COMPLETED', summary: { errors: 0 } });
    const rows = await assets();
    const cluster = rows.find((a) => a.assetType === 'CLUSTER') as AssetRow;
    // A node without a providerID is a SERVER (one with a cloud's is a VM: kubernetes-estate.unit.test.ts).
    expect(sorted(rows.map((a) => `${a.assetType} ${a.displayName}`))).toEqual(sorted([
      `CLUSTER ${cluster.displayName}`, `SERVER ${WORKER}`, ...Object.keys(CONTAINERS).map((c) => `CONTAINER ${c}`),
    ]));
    const byName = new Map(rows.map((a) => [a.displayName, a]));
    expect(cluster.parent).toBeUndefined();
    for (const [name, { node }] of Object.entries(CONTAINERS)) expect(byName.get(name)?.parent).toMatchObject({ displayName: node, via: 'HOSTS_CONTAINER' });
    expect(sorted(await relationships())).toEqual(sorted([
      `CONTAINS ${cluster.displayName} -> ${WORKER}`,
      ...Object.entries(CONTAINERS).map(([name, { node }]) => `HOSTS_CONTAINER ${node} -> ${name}`),
    ]));

    // Identity and facts: the cluster by its kube-system namespace's UID (the double's: the example shows none), a container by its runtime id.
    const kubeSystemUid = k8s.objects.namespaces.find((n) => n.metadata.name === 'kube-system')?.metadata.uid;
    expect(await attributes(cluster.id)).toMatchObject({ instanceId: `kubernetes:${kubeSystemUid}`, namespaces: 'default,kube-node-lease,kube-public,kube-system', namespaceCount: 4 });
    const worker = await api.get(`/api/v1/assets/${(byName.get(WORKER) as AssetRow).id}`);
    expect(worker.body.data).toMatchObject({ hostname: WORKER, ipAddresses: ['192.168.0.113'] });
    // 2 CPUs and 2025188Ki of capacity.
    expect(JSON.parse(worker.body.data.customAttributes)).toMatchObject({
      containerRuntime: 'containerd://1.5.9', hardwareUuid: 'aa829ca9-73d7-064d-9019-df07404ad448', osName: 'Ubuntu 21.10', kubeletVersion: 'v1.23.3', cpuCount: 2, memoryMb: 1978,
    });
    expect(JSON.parse(worker.body.data.customAttributes).instanceId).toBeUndefined();
    for (const [name, { id }] of Object.entries(CONTAINERS)) {
      expect(await attributes((byName.get(name) as AssetRow).id)).toMatchObject({
        instanceId: id, containerId: id.slice(0, 12), runtime: 'containerd', namespace: 'default', pod: name.split('/')[0], state: 'running', ports: '80/tcp',
        image: 'docker.io/library/nginx:latest', imageId: 'docker.io/library/nginx@sha256:2834dc507516af02784808c5f48b7cbe38b8ed5d0f4837f16e78d00deb7e7767', labels: 'app=nginx,pod-template-hash=67d4bdd6f5',
      });
    }
    expect(sorted(await services())).toEqual(sorted([
      `service/default/my-service on ${cluster.displayName} [{"port":80,"protocol":"tcp"}]`,
      `ingress/default/minimal-ingress on ${cluster.displayName} [{"port":80,"protocol":"tcp"}]`,
      `ingress/default/tls-example-ingress on ${cluster.displayName} [{"port":80,"protocol":"tcp"},{"port":443,"protocol":"tcp"}]`,
    ]));
    const hosts = (await api.get(`/api/v1/discovery/runs/${run.id}/hosts`)).body.data;
    expect(hosts).toEqual([expect.objectContaining({ address: '127.0.0.1', methods: ['KUBERNETES'], outcome: 'SUCCESS', assetId: cluster.id })]);
  }, TEST_TIMEOUT_MS);

  it('changes nothing but seen-times on a rescan, and reads a list again from its start when its continue token expired', async () => {
    const strip = <T extends Record<string, unknown>>(rows: T[]) =>
      rows.map(({ lastSeenAt: _seen, lastScanAt: _scanned, ...rest }) => rest).sort((a, b) => String(a.id).localeCompare(String(b.id)));
    const [beforeAssets, beforeEdges, beforeServices] = [strip(await assets()), await relationships(), await services()];
    // The namespaces (4, a page each) are the list read over several pages.
    k8s.expireNext.add('namespaces');
    const run = await scan(targetId);
    expect(run).toMatchObject({ status: 'COMPLETED', summary: { errors: 0 } });
    expect(k8s.expireNext.size).toBe(0);
    const afterAssets = await assets();
    expect(strip(afterAssets)).toEqual(beforeAssets);
    expect(await relationships()).toEqual(beforeEdges);
    expect(await services()).toEqual(beforeServices);
    expect(afterAssets.every((a) => a.lastSeenAt === afterAssets[0]?.lastSeenAt)).toBe(true);
  }, TEST_TIMEOUT_MS);

  it("retires a removed pod's container and a removed service only after a complete read; a list refused (403) names the verb and resource", async () => {
    const removed = `${POD}/nginx`;
    k8s.objects.pods = k8s.objects.pods.filter((p) => p.metadata.name !== POD);
    k8s.objects.services = k8s.objects.services.filter((s) => s.metadata.name !== 'my-service');
    // The ingresses may not be listed: what was read is loaded, nothing retired.
    k8s.forbidden.add('ingresses');
    const partial = await scan(targetId);
    expect(partial.status).toBe('COMPLETED_WITH_ERRORS');
    const [forbidden, ...others] = await errorsOf(partial.id);
    expect(others).toEqual([]);
    expect(forbidden).toMatchObject({ method: 'KUBERNETES', stage: 'collect', code: 'KUBERNETES_FORBIDDEN' });
    // The connector names the request and its verb; the API server's message (the published 403, which names its own example's resource) follows.
    expect(forbidden.message).toContain('GET /apis/networking.k8s.io/v1/ingresses (verb list): 403 pod is forbidden: User "NAME"');
    expect((await assets()).find((a) => a.displayName === removed)?.status).toBe('ACTIVE');
    expect(await relationships()).toContain(`HOSTS_CONTAINER ${WORKER} -> ${removed}`);
    expect([...(await services())].some((s) => s.startsWith('service/default/my-service'))).toBe(true);

    k8s.forbidden.clear();
    const complete = await scan(targetId);
    expect(complete.status).toBe('COMPLETED');
    const rows = await assets();
    expect(rows.find((a) => a.displayName === removed)?.status).toBe('INACTIVE');
    expect(active(rows).filter((a) => a.assetType === 'CONTAINER')).toEqual([]);
    expect(await relationships()).not.toContain(`HOSTS_CONTAINER ${WORKER} -> ${removed}`);
    expect([...(await services())].some((s) => s.startsWith('service/default/my-service'))).toBe(false);
  }, TEST_TIMEOUT_MS);

  it('cuts a list at the target\'s maxObjects (KUBERNETES_LIST_TRUNCATED) and retires nothing', async () => {
    const truncated = (await api.post('/api/v1/discovery/targets', {
      name: 'cluster bounded', addresses: ['127.0.0.1'], methods: ['KUBERNETES'], credentialIds: [credentialId], ports: { KUBERNETES: k8s.port }, settings: { KUBERNETES: { maxObjects: 1 } },
    })).body.data.id;
    const before = active(await assets()).map((a) => a.id).sort();
    const run = await scan(truncated);
    expect(run.status).toBe('COMPLETED_WITH_ERRORS');
    const codes = (await errorsOf(run.id)).map((e: { code: string; message: string }) => `${e.code} ${e.message.split(' holds')[0]}`);
    // Namespaces (4) and ingresses (2) against a bound of 1: the node fits, and no pod or service is left.
    expect(sorted(codes)).toEqual(sorted(['/api/v1/namespaces', '/apis/networking.k8s.io/v1/ingresses'].map((p) => `KUBERNETES_LIST_TRUNCATED GET ${p}`)));
    expect(active(await assets()).map((a) => a.id).sort()).toEqual(before);
  }, TEST_TIMEOUT_MS);

  it('fails with KUBERNETES_UNAUTHORIZED on a wrong token and with CONNECTION_REFUSED when the API server is unreachable', async () => {
    const wrong = (await api.post('/api/v1/credentials', { name: 'cluster wrong token', kind: 'KUBERNETES_TOKEN', matchPatterns: [], settings: { caCertificate: k8s.certificate }, secrets: { token: 'not-the-token' } })).body.data.id;
    const badTarget = (await api.post('/api/v1/discovery/targets', { name: 'cluster wrong token', addresses: ['127.0.0.1'], methods: ['KUBERNETES'], credentialIds: [wrong], ports: { KUBERNETES: k8s.port } })).body.data.id;
    const refused = await scan(badTarget);
    expect(refused.status).toBe('COMPLETED_WITH_ERRORS');
    expect(await errorsOf(refused.id)).toEqual([expect.objectContaining({ address: '127.0.0.1', method: 'KUBERNETES', stage: 'authenticate', code: 'KUBERNETES_UNAUTHORIZED' })]);

    const closed = await freePort();
    const downTarget = (await api.post('/api/v1/discovery/targets', { name: 'cluster down', addresses: ['127.0.0.1'], methods: ['SWEEP', 'KUBERNETES'], credentialIds: [credentialId], ports: { KUBERNETES: closed } })).body.data.id;
    const down = await scan(downTarget);
    expect(down.status).toBe('COMPLETED_WITH_ERRORS');
    expect(await errorsOf(down.id)).toEqual([expect.objectContaining({ method: 'KUBERNETES', code: 'CONNECTION_REFUSED' })]);
  }, TEST_TIMEOUT_MS);

  it("refuses a certificate the credential's CA did not sign, pins the certificate at first contact, and refuses a changed one until an administrator accepts it", async () => {
    const port = await freePort();
    let second = await new KubernetesDouble(TOKEN).start(port);
    try {
      // The first double's CA does not sign the second's certificate: the token is not sent.
      const untrusted = (await api.post('/api/v1/discovery/targets', { name: 'cluster untrusted', addresses: ['127.0.0.1'], methods: ['KUBERNETES'], credentialIds: [credentialId], ports: { KUBERNETES: port } })).body.data.id;
      const run = await scan(untrusted);
      expect(await errorsOf(run.id)).toEqual([expect.objectContaining({ stage: 'verify-certificate', code: 'KUBERNETES_CERTIFICATE_UNTRUSTED' })]);
      expect(second.requests).toEqual([]);

      // Without a CA, the certificate is pinned at first contact.
      const pinning = (await api.post('/api/v1/credentials', { name: 'cluster pinned', kind: 'KUBERNETES_TOKEN', matchPatterns: [], settings: {}, secrets: { token: TOKEN } })).body.data.id;
      const pinned = (await api.post('/api/v1/discovery/targets', { name: 'cluster pinned', addresses: ['127.0.0.1'], methods: ['KUBERNETES'], credentialIds: [pinning], ports: { KUBERNETES: port } })).body.data.id;
      expect((await scan(pinned)).status).toBe('COMPLETED');
      const pin = await service.running.container.db('tls_certificate_pins').where({ address: '127.0.0.1', port }).first();
      expect(pin.fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
      // The same server again with a new certificate (a new key): refused, the token not sent.
      await second.stop();
      second = await new KubernetesDouble(TOKEN).start(port);
      const changed = await scan(pinned);
      expect(changed.status).toBe('COMPLETED_WITH_ERRORS');
      const [error] = await errorsOf(changed.id);
      expect(error).toEqual(expect.objectContaining({ stage: 'verify-certificate', code: 'KUBERNETES_CERTIFICATE_CHANGED' }));
      expect(second.requests).toEqual([]);
      const presented = /is now ((?:[0-9A-F]{2}:){31}[0-9A-F]{2})/.exec(error.message)?.[1] as string;
      const accepted = await api.post('/api/v1/discovery/pins/accept', { kind: 'TLS_CERTIFICATE', address: '127.0.0.1', port, fingerprint: presented });
      expect(accepted.status).toBe(200);
      expect((await scan(pinned)).status).toBe('COMPLETED');
    } finally {
      await second.stop();
    }
  }, TEST_TIMEOUT_MS);
});
