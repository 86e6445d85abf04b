// A double of a Kubernetes API server for the tests and the benchmark (none runs here): HTTPS with a certificate of its own
// (made by openssl), JSON over the real paths (/api/v1/nodes, /api/v1/pods, /api/v1/namespaces,
// /api/v1/namespaces/{name}, /api/v1/services, /apis/networking.k8s.io/v1/ingresses), list
// pagination with limit and continue as the API server does it (metadata.continue while more remain,
// remainingItemCount), and the published Status objects of test/fixtures/kubernetes/statuses.json
// for 401, 403, 404 and 410, served as published whatever the request named. Its objects are the
// published examples of test/fixtures/kubernetes/, each with a UID where its example shows none
// (the API server gives every object one at creation). It checks the bearer token.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { fromProjectRoot } from '../../platform/project-root.js';

type KubeObject = Record<string, any>;
const FIXTURES = fromProjectRoot('test', 'fixtures', 'kubernetes');
const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(FIXTURES, `${name}.json`), 'utf8'));
/** A fixture's objects as the API server holds them: each given a UID at creation where its example shows none. */
const created = (name: string): KubeObject[] => (fixture(name).items as KubeObject[]).map((o) => ({ ...o, metadata: { uid: randomUUID(), ...o.metadata } }));

export const KUBERNETES_LIST_PATHS = {
  nodes: '/api/v1/nodes',
  pods: '/api/v1/pods',
  namespaces: '/api/v1/namespaces',
  services: '/api/v1/services',
  ingresses: '/apis/networking.k8s.io/v1/ingresses',
} as const;
export type ListName = keyof typeof KUBERNETES_LIST_PATHS;

/** A fresh self-signed certificate (a new key each time) naming 127.0.0.1. */
export function certificate(): { key: string; cert: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'k8s-double-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', '/CN=kube-apiserver',
      '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')], { stdio: 'ignore' });
    return { key: fs.readFileSync(path.join(dir, 'key.pem'), 'utf8'), cert: fs.readFileSync(path.join(dir, 'cert.pem'), 'utf8') };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export class KubernetesDouble {
  /** What it holds, by list: the fixtures' objects, changed by a test. */
  readonly objects: Record<ListName, KubeObject[]> = {
    nodes: created('nodes'), pods: created('pods'), namespaces: created('namespaces'), services: created('services'), ingresses: created('ingresses'),
  };
  private readonly statuses = fixture('statuses');
  /** Requests answered, by path. */
  readonly requests: string[] = [];
  /** Lists that answer 403, and lists whose next continued page answers 410. */
  readonly forbidden = new Set<ListName>();
  readonly expireNext = new Set<ListName>();
  private server?: https.Server;
  certificate = '';
  port = 0;

  constructor(readonly token: string) {}

  /**
   * A cluster of `nodes` nodes and `pods` running pods, for the benchmark: copies of the published
   * node and running pod, each with its own name, uid, address and container id.
   */
  scaleTo(nodes: number, pods: number): this {
    const [node, pod] = [this.objects.nodes.find((n) => !n.spec.providerID), this.objects.pods.find((p) => p.status.phase === 'Running')] as [KubeObject, KubeObject];
    const hex = (i: number, width: number) => i.toString(16).padStart(width, '0');
    this.objects.nodes = Array.from({ length: nodes }, (_, i) => {
      const copy = structuredClone(node);
      copy.metadata.name = `kube-worker-${i + 1}`;
      copy.metadata.uid = `98efe7cb-2978-4a0b-842a-${hex(i, 12)}`;
      copy.status.addresses = [{ type: 'InternalIP', address: `10.${(i >> 8) & 255}.${i & 255}.10` }, { type: 'Hostname', address: copy.metadata.name }];
      copy.status.nodeInfo.systemUUID = `aa829ca9-73d7-064d-9019-${hex(i, 12)}`;
      return copy;
    });
    this.objects.pods = Array.from({ length: pods }, (_, i) => {
      const copy = structuredClone(pod);
      copy.metadata.name = `nginx-deployment-67d4bdd6f5-${hex(i, 5)}`;
      copy.metadata.uid = `a6501da1-0447-4262-98eb-${hex(i, 12)}`;
      copy.spec.nodeName = `kube-worker-${(i % nodes) + 1}`;
      copy.status.podIP = `10.244.${(i >> 8) & 255}.${i & 255}`;
      copy.status.containerStatuses[0].containerID = `containerd://${hex(i, 8)}${'5403af59a2b46ee5a23fb0ae4b1e077f7ca5c5fb7af16e1ab21c00e0'}`;
      return copy;
    });
    return this;
  }

  async start(port = 0): Promise<this> {
    const { key, cert } = certificate();
    this.certificate = cert;
    this.server = https.createServer({ key, cert }, (req, res) => this.answer(req.url ?? '/', req.headers.authorization, res));
    await new Promise<void>((resolve) => this.server?.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private send(res: import('node:http').ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  private answer(url: string, authorization: string | undefined, res: import('node:http').ServerResponse): void {
    const { pathname, searchParams } = new URL(url, 'https://double');
    this.requests.push(pathname);
    if (authorization !== `Bearer ${this.token}`) return this.send(res, 401, this.statuses.unauthorized);
    if (pathname === '/api/v1/namespaces/kube-system') return this.send(res, 200, this.objects.namespaces.find((n) => n.metadata.name === 'kube-system'));
    const name = (Object.keys(KUBERNETES_LIST_PATHS) as ListName[]).find((n) => KUBERNETES_LIST_PATHS[n] === pathname);
    if (!name) return this.send(res, 404, this.statuses.notFound);
    // The published 403 body as it stands: it names the resource of its own example, not this list.
    if (this.forbidden.has(name)) return this.send(res, 403, this.statuses.forbidden);
    // A continue token names the list and the offset the next page starts at.
    const token = searchParams.get('continue');
    let offset = 0;
    if (token) {
      if (this.expireNext.delete(name)) return this.send(res, 410, this.statuses.expired);
      const decoded = JSON.parse(Buffer.from(token, 'base64').toString('utf8'));
      if (decoded.list !== name) return this.send(res, 400, { ...this.statuses.notFound, reason: 'BadRequest', code: 400, message: 'continue key is not valid' });
      offset = decoded.offset;
    }
    const all = [...this.objects[name]].sort((a, b) => `${a.metadata.namespace ?? ''}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace ?? ''}/${b.metadata.name}`));
    const limit = Number(searchParams.get('limit') ?? 0) || all.length;
    const items = all.slice(offset, offset + limit);
    const rest = all.length - offset - items.length;
    const kind = { nodes: 'NodeList', pods: 'PodList', namespaces: 'NamespaceList', services: 'ServiceList', ingresses: 'IngressList' }[name];
    this.send(res, 200, {
      kind, apiVersion: name === 'ingresses' ? 'networking.k8s.io/v1' : 'v1',
      metadata: { resourceVersion: '2568', ...(rest > 0 ? { continue: Buffer.from(JSON.stringify({ list: name, offset: offset + items.length })).toString('base64'), remainingItemCount: rest } : {}) },
      items,
    });
  }
}
