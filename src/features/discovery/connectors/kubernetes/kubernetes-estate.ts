// What the Kubernetes connector reads (nodes, pods, namespaces, services, ingresses) as an estate,
// with the spec's parent rules: the CLUSTER (a root, known by its kube-system namespace's UID)
// CONTAINS its nodes; a node is a VM where its providerID names a cloud or hypervisor that runs
// it as one, else a SERVER; each running container of a pod is a CONTAINER that its node
// HOSTS_CONTAINER, known by its runtime's container id (the id the CONTAINERS connector gives the
// same container, so that both are one asset and its processes, read over SSH, are its own).
// Services and ingresses are the cluster's discovered services, with their ports.
import type { EstateAsset, EstateObservation, EstateService } from '../../host-observation.js';
import { cleanText } from '../../untrusted-text.js';
import type { KubeObject } from './kubernetes-api.js';

export const CLUSTER_KEY = 'cluster';

/** providerID schemes (node.spec.providerID, scheme://...) whose nodes are virtual machines. */
const VM_PROVIDERS = new Set(['aws', 'gce', 'azure', 'openstack', 'vsphere', 'digitalocean', 'linode', 'hcloud', 'oci', 'alicloud', 'exoscale', 'vultr', 'scaleway', 'ibm', 'cloudstack', 'ovirt', 'kubevirt']);

export interface KubernetesLists {
  nodes: KubeObject[];
  pods: KubeObject[];
  namespaces: KubeObject[];
  services: KubeObject[];
  ingresses: KubeObject[];
}

const obj = (value: unknown): KubeObject => (value && typeof value === 'object' && !Array.isArray(value) ? (value as KubeObject) : {});
const arr = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const str = (value: unknown, max?: number) => (typeof value === 'string' || typeof value === 'number' ? cleanText(String(value), max) : undefined);
const labelsOf = (o: KubeObject) => Object.entries(obj(obj(o.metadata).labels)).map(([k, v]) => `${k}=${str(v) ?? ''}`).sort().join(',');

/** A memory quantity (16Gi, 32912964Ki, 2e9) in MB. */
function megabytes(quantity: unknown): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(str(quantity) ?? '');
  if (!m) return undefined;
  const factor = { Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4, k: 1e3, M: 1e6, G: 1e9, T: 1e12 }[m[2] ?? ''] ?? 1;
  return Math.round((Number(m[1]) * factor) / 1024 ** 2);
}

/** The runtime and bare id of a container id as the kubelet writes it (containerd://<hex>, docker://<hex>, cri-o://<hex>). */
function containerIdOf(value: unknown): { runtime: string; id: string } | undefined {
  const m = /^([a-z0-9-]+):\/\/([0-9a-f]{12,64})$/.exec(str(value)?.toLowerCase() ?? '');
  return m ? { runtime: m[1] as string, id: m[2] as string } : undefined;
}

/** A node's asset: VM where its provider says so, with the provider's instance id (AWS: i-..., as EC2 names it); else a SERVER. */
function nodeAsset(node: KubeObject): EstateAsset | undefined {
  const meta = obj(node.metadata);
  const name = str(meta.name);
  if (!name) return undefined;
  const status = obj(node.status);
  const info = obj(status.nodeInfo);
  const providerId = str(obj(node.spec).providerID);
  const provider = providerId ? /^([a-z0-9-]+):\/\//.exec(providerId)?.[1] : undefined;
  const virtual = provider !== undefined && VM_PROVIDERS.has(provider);
  const instanceId = !virtual ? undefined : provider === 'aws' ? (providerId?.split('/').pop() || providerId) : providerId;
  const addresses = arr(status.addresses).map(obj);
  const ips = addresses.filter((a) => a.type === 'InternalIP' || a.type === 'ExternalIP').flatMap((a) => str(a.address) ?? []);
  const hostname = str(addresses.find((a) => a.type === 'Hostname')?.address)?.toLowerCase();
  const cpu = Number(str(obj(status.capacity).cpu));
  const attributes = Object.fromEntries(Object.entries({
    kubernetesNode: name, labels: labelsOf(node), providerId, instanceId, osName: str(info.osImage), kernel: str(info.kernelVersion), architecture: str(info.architecture),
    kubeletVersion: str(info.kubeletVersion), containerRuntime: str(info.containerRuntimeVersion), hardwareUuid: str(info.systemUUID)?.toLowerCase(),
    cpuCount: Number.isInteger(cpu) && cpu > 0 ? cpu : undefined, memoryMb: megabytes(obj(status.capacity).memory),
  }).filter(([, v]) => v !== undefined && v !== '')) as EstateAsset['attributes'];
  return {
    key: `node/${name}`, assetType: virtual ? 'VM' : 'SERVER', displayName: name, ...(hostname ? { hostname: hostname.split('.')[0] } : {}),
    ...(hostname?.includes('.') ? { fqdn: hostname } : {}), macAddresses: [], ipAddresses: [...new Set(ips)], attributes,
  };
}

/** The running containers of a pod, each with the node that runs it. */
function podContainers(pod: KubeObject): { node?: string; asset: EstateAsset }[] {
  const meta = obj(pod.metadata);
  const spec = obj(pod.spec);
  const status = obj(pod.status);
  const labels = labelsOf(pod);
  const ports = new Map(arr(spec.containers).map(obj).map((c) => [str(c.name), arr(c.ports).map(obj).map((p) => `${str(p.containerPort)}/${(str(p.protocol) ?? 'TCP').toLowerCase()}`).sort().join(',')]));
  return arr(status.containerStatuses).map(obj).flatMap((c) => {
    const running = obj(obj(c.state).running);
    const id = containerIdOf(c.containerID);
    if (!id || !obj(c.state).running) return [];
    const name = str(c.name) ?? id.id.slice(0, 12);
    const attributes = Object.fromEntries(Object.entries({
      runtime: id.runtime, image: str(c.image), imageId: str(c.imageID), state: 'running', startedAt: str(running.startedAt), restartCount: typeof c.restartCount === 'number' ? c.restartCount : undefined,
      namespace: str(meta.namespace), pod: str(meta.name), podUid: str(meta.uid), podAddress: str(status.podIP), ports: ports.get(name), labels,
      containerId: id.id.slice(0, 12), instanceId: id.id,
    }).filter(([, v]) => v !== undefined && v !== '')) as EstateAsset['attributes'];
    return [{ node: str(spec.nodeName), asset: { key: `container/${id.id}`, assetType: 'CONTAINER', displayName: `${str(meta.name) ?? ''}/${name}`, macAddresses: [], ipAddresses: [], attributes } }];
  });
}

/** A Service (its ports, by its type) and an Ingress (80, and 443 where it terminates TLS) as discovered services of the cluster. */
function clusterServices(services: KubeObject[], ingresses: KubeObject[]): EstateService[] {
  const rows: EstateService[] = [];
  for (const s of services) {
    const meta = obj(s.metadata);
    const spec = obj(s.spec);
    if (!str(meta.name)) continue;
    const listenPorts = arr(spec.ports).map(obj).flatMap((p) => (typeof p.port === 'number' ? [{ protocol: (str(p.protocol) ?? 'TCP').toLowerCase(), port: p.port }] : []));
    rows.push({ asset: CLUSTER_KEY, serviceName: `service/${str(meta.namespace) ?? ''}/${str(meta.name)}`, displayName: str(meta.name) ?? null, state: str(spec.type) ?? 'ClusterIP', listenPorts, sourceConnector: 'KUBERNETES' });
  }
  for (const i of ingresses) {
    const meta = obj(i.metadata);
    if (!str(meta.name)) continue;
    const hosts = [...new Set(arr(obj(i.spec).rules).map(obj).flatMap((r) => str(r.host) ?? []))].join(',');
    const tls = arr(obj(i.spec).tls).length > 0;
    rows.push({ asset: CLUSTER_KEY, serviceName: `ingress/${str(meta.namespace) ?? ''}/${str(meta.name)}`, displayName: hosts || (str(meta.name) ?? null), state: 'Ingress', listenPorts: [{ protocol: 'tcp', port: 80 }, ...(tls ? [{ protocol: 'tcp', port: 443 }] : [])], sourceConnector: 'KUBERNETES' });
  }
  return rows.sort((a, b) => a.serviceName.localeCompare(b.serviceName));
}

/** The estate of a cluster; `complete` only when every list was read in full. */
export function toKubernetesEstate(cluster: { uid: string; name: string; apiServer: string }, lists: KubernetesLists, scope: string, complete: boolean): EstateObservation {
  const namespaces = lists.namespaces.flatMap((n) => str(obj(n.metadata).name) ?? []).sort();
  const assets: EstateAsset[] = [{
    key: CLUSTER_KEY, assetType: 'CLUSTER', displayName: cluster.name, macAddresses: [], ipAddresses: [],
    attributes: { apiServer: cluster.apiServer, namespaces: namespaces.join(','), namespaceCount: namespaces.length, instanceId: `kubernetes:${cluster.uid}` },
  }];
  const relationships: EstateObservation['relationships'] = [];
  for (const node of lists.nodes) {
    const asset = nodeAsset(node);
    if (!asset) continue;
    assets.push(asset);
    relationships.push({ type: 'CONTAINS', source: CLUSTER_KEY, target: asset.key });
  }
  const nodes = new Set(assets.map((a) => a.key));
  const containers = new Map<string, EstateAsset>();
  for (const pod of lists.pods) {
    for (const { node, asset } of podContainers(pod)) {
      containers.set(asset.key, asset);
      if (node && nodes.has(`node/${node}`)) relationships.push({ type: 'HOSTS_CONTAINER', source: `node/${node}`, target: asset.key });
    }
  }
  assets.push(...containers.values());
  assets.sort((a, b) => a.key.localeCompare(b.key));
  return {
    method: 'KUBERNETES', scope, root: CLUSTER_KEY, assets, relationships, relationshipTypes: ['CONTAINS', 'HOSTS_CONTAINER'],
    services: clusterServices(lists.services, lists.ingresses), complete,
  };
}
