// The Kubernetes estate mapping on the published node and pod (test/fixtures/kubernetes/): which
// providers make a node a VM and with which instance id, and which container statuses become
// CONTAINER assets.
import { readFileSync } from 'node:fs';
import { toKubernetesEstate, type KubernetesLists } from '../../src/features/discovery/connectors/kubernetes/kubernetes-estate.js';

type KubeObject = Record<string, any>;
const fixture = (name: string): KubeObject[] => JSON.parse(readFileSync(`test/fixtures/kubernetes/${name}.json`, 'utf8')).items;
const CLUSTER = { uid: 'e6b1a4d0-9c3f-4f7e-8b2a-7d5c1e0f4a43', name: 'cluster', apiServer: 'https://127.0.0.1:6443' };
const lists = (changes: Partial<KubernetesLists>): KubernetesLists => ({ nodes: [], pods: [], namespaces: [], services: [], ingresses: [], ...changes });

describe('the Kubernetes estate', () => {
  const worker = fixture('nodes').find((n) => n.metadata.name === 'kube-worker-1') as KubeObject;
  const withProvider = (providerID: string | undefined) => ({ ...worker, spec: providerID ? { providerID } : {} });

  it.each([
    ['aws:///us-east-1a/i-08736224042c4ee75', 'VM', 'i-08736224042c4ee75'],
    ['gce://my-project/us-central1-a/gke-node-1', 'VM', 'gce://my-project/us-central1-a/gke-node-1'],
    ['azure:///subscriptions/s/resourceGroups/g/providers/Microsoft.Compute/virtualMachines/aks-1', 'VM', 'azure:///subscriptions/s/resourceGroups/g/providers/Microsoft.Compute/virtualMachines/aks-1'],
    ['kind://docker/kind/kind-control-plane', 'SERVER', undefined],
    [undefined, 'SERVER', undefined],
  ])('makes a node with providerID %s a %s (instance id %s)', (providerID, type, instanceId) => {
    const [node] = toKubernetesEstate(CLUSTER, lists({ nodes: [withProvider(providerID)] }), 'scope', true).assets.filter((a) => a.key.startsWith('node/'));
    expect(node).toMatchObject({ assetType: type, displayName: 'kube-worker-1', hostname: 'kube-worker-1', ipAddresses: ['192.168.0.113'] });
    expect(node?.attributes.instanceId).toBe(instanceId);
    // 2025188Ki of capacity.
    expect(node?.attributes).toMatchObject({ cpuCount: 2, memoryMb: 1978 });
  });

  it('takes a running container by its container id, hosted by its node when that node was read', () => {
    const pods = fixture('pods');
    const hosted = toKubernetesEstate(CLUSTER, lists({ nodes: [worker], pods }), 'scope', true);
    expect(hosted.assets.filter((a) => a.assetType === 'CONTAINER').map((a) => a.displayName)).toEqual(['nginx-deployment-67d4bdd6f5-w6kd7/nginx']);
    expect(hosted.relationships.filter((r) => r.type === 'HOSTS_CONTAINER')).toEqual([
      { type: 'HOSTS_CONTAINER', source: 'node/kube-worker-1', target: 'container/5403af59a2b46ee5a23fb0ae4b1e077f7ca5c5fb7af16e1ab21c00e0e616462a' },
    ]);
    // Its node not read: the container has no edge rather than one to nothing.
    const alone = toKubernetesEstate(CLUSTER, lists({ pods }), 'scope', true);
    expect(alone.assets.filter((a) => a.assetType === 'CONTAINER').map((a) => a.displayName)).toEqual(['nginx-deployment-67d4bdd6f5-w6kd7/nginx']);
    expect(alone.relationships.filter((r) => r.type === 'HOSTS_CONTAINER')).toEqual([]);
  });
});
