// KUBERNETES: the Kubernetes API server at the address (kubernetes-api.ts): certificate checked and
// pinned, the cluster named by its kube-system namespace with the first KUBERNETES_TOKEN credential
// accepted, then its nodes, pods, namespaces, services and ingresses listed in pages and mapped to
// an estate (kubernetes-estate.ts). A read cut short (a list refused or failed, a list cut at the
// target's maxObjects, the host's time-out) still loads what was read, but retires nothing.
import { z } from 'zod';
import type { RevealedCredential } from '../../../credentials/credential-service.js';
import type { ConnectorResult } from '../../host-observation.js';
import type { Pins } from '../../host-state-store.js';
import type { RunError } from '../../run-record.js';
import type { CollectRequest, ConnectorEnvironment, InventoryConnector } from '../connector.js';
import { KubernetesApi, KubernetesFailure } from './kubernetes-api.js';
import { KUBERNETES_ERRORS } from './kubernetes-errors.js';
import { toKubernetesEstate, type KubernetesLists } from './kubernetes-estate.js';

const DEFAULT_PAGE_SIZE = 500;
const DEFAULT_MAX_OBJECTS = 100_000;

const settings = z.strictObject({
  pageSize: z.number().int().min(1).max(5000).optional().describe('Objects asked for in each page of a list (500 by default)'),
  maxObjects: z.number().int().min(1).max(1_000_000).optional().describe('Objects read at most in each list (100,000 by default); more is a partial read'),
});

/** What is listed, in this order: the lists a ClusterRole grants (docs/discovery.md). */
export const KUBERNETES_LISTS: Record<keyof KubernetesLists, string> = {
  nodes: '/api/v1/nodes',
  pods: '/api/v1/pods',
  namespaces: '/api/v1/namespaces',
  services: '/api/v1/services',
  ingresses: '/apis/networking.k8s.io/v1/ingresses',
};

// Failures that no other credential can mend.
const FINAL = new Set(['CONNECTION_REFUSED', 'CONNECTION_TIMEOUT', 'HOST_UNREACHABLE', 'DNS_FAILURE', 'KUBERNETES_CERTIFICATE_CHANGED', 'NOT_KUBERNETES', 'HOST_TIMEOUT']);

export interface KubernetesReadOptions {
  port: number;
  hostname?: string;
  connectTimeoutMs: number;
  pageSize: number;
  maxObjects: number;
  deadline: number;
}

/** What a read gave, with its cost (for the benchmark): the requests sent. */
export interface KubernetesRead extends ConnectorResult {
  calls: number;
}

/** The API's path prefix: the credential's apiServerUrl path when it names one (a proxy), else none. */
function prefixOf(credential: RevealedCredential): string {
  const url = typeof credential.settings.apiServerUrl === 'string' ? new URL(credential.settings.apiServerUrl) : undefined;
  return url ? url.pathname.replace(/\/+$/, '') : '';
}

export async function readKubernetes(address: string, credentials: RevealedCredential[], options: KubernetesReadOptions, pins: Pins): Promise<KubernetesRead> {
  const scope = `KUBERNETES:${address}:${options.port}`;
  const record = (stage: string, code: RunError['code'], message: string): RunError => ({ address, method: 'KUBERNETES', stage, code, message });
  const refused: string[] = [];
  let calls = 0;
  for (const credential of credentials) {
    const text = (name: string) => (typeof credential.settings[name] === 'string' ? (credential.settings[name] as string) : undefined);
    const ca = text('caCertificate');
    const pin = text('certificateSha256');
    const api = new KubernetesApi({
      host: address, port: options.port, prefix: prefixOf(credential), token: credential.secrets.token ?? '',
      ...(ca ? { caCertificate: ca } : {}), ...(pin ? { certificateSha256: pin } : {}),
      connectTimeoutMs: options.connectTimeoutMs, deadline: options.deadline, pageSize: options.pageSize, maxObjects: options.maxObjects,
    }, pins);
    let stage = 'verify-certificate';
    try {
      await api.verify();
      // The kube-system namespace is made with the cluster and lives as long: its UID names the cluster.
      stage = 'authenticate';
      const kubeSystem = await api.get('/api/v1/namespaces/kube-system');
      const uid = kubeSystem === 'expired' ? undefined : (kubeSystem.metadata as Record<string, unknown> | undefined)?.uid;
      if (typeof uid !== 'string' || !uid) throw new KubernetesFailure('NOT_KUBERNETES', `${address}:${options.port} answered without the kube-system namespace's UID.`);
      stage = 'collect';
      const lists: KubernetesLists = { nodes: [], pods: [], namespaces: [], services: [], ingresses: [] };
      const errors: RunError[] = [];
      for (const [name, path] of Object.entries(KUBERNETES_LISTS) as [keyof KubernetesLists, string][]) {
        try {
          const { items, truncated } = await api.list(path);
          lists[name] = items;
          if (truncated) errors.push(record('collect', 'KUBERNETES_LIST_TRUNCATED', `GET ${path} holds more than ${options.maxObjects} objects (the target's KUBERNETES maxObjects): the first ${items.length} are kept; nothing is retired.`));
        } catch (error) {
          if (!(error instanceof KubernetesFailure)) throw error;
          errors.push(record('collect', error.code, `${error.message} Nothing is retired.`));
          if (FINAL.has(error.code)) break;
        }
      }
      calls += api.calls;
      api.close();
      const estate = toKubernetesEstate({ uid, name: options.hostname ?? address, apiServer: `https://${address}:${options.port}${prefixOf(credential)}` }, lists, scope, errors.length === 0);
      return { estate, errors, credentialId: credential.id, calls };
    } catch (error) {
      api.close();
      calls += api.calls;
      const failure = error instanceof KubernetesFailure ? error : new KubernetesFailure('KUBERNETES_API_ERROR', `${stage}: ${error instanceof Error ? error.message.split('\n')[0]?.slice(0, 200) : 'unknown error'}`);
      if (failure.code === 'KUBERNETES_UNAUTHORIZED') {
        refused.push(`Credential "${credential.name}" was refused.`);
        continue;
      }
      // A certificate the credential does not trust may be another cluster's: the next credential may name it.
      if (failure.code === 'KUBERNETES_CERTIFICATE_UNTRUSTED' && credentials.length > 1) {
        refused.push(failure.message);
        continue;
      }
      return { errors: [record(stage, failure.code, failure.message)], calls };
    }
  }
  return { errors: [record('authenticate', refused.some((r) => r.startsWith('Credential')) ? 'KUBERNETES_UNAUTHORIZED' : 'KUBERNETES_CERTIFICATE_UNTRUSTED', `No credential offered was accepted: ${refused.join(' ')}`.slice(0, 1000))], calls };
}

export const kubernetesConnector = {
  method: 'KUBERNETES',
  stage: 'inventory',
  enabledByDefault: false,
  // Below SNMP and vCenter: a node's facts are what its kubelet reports, SSH's own view wins.
  factRank: 44,
  description: "A Kubernetes cluster's nodes, running containers of pods, namespaces and labels, services and ingresses over the Kubernetes API (a bearer token).",
  credentialKinds: ['KUBERNETES_TOKEN'],
  defaultPort: 6443,
  settings,
  errors: KUBERNETES_ERRORS,
  triedWhere: 'port-answered',
  silentCodes: ['CONNECTION_REFUSED', 'NOT_KUBERNETES'],
  retires: ['estate'],
  collect: async ({ address, hostname, credentials, port, settings: targetSettings, deadline }: CollectRequest, { config, hostState }: ConnectorEnvironment) => {
    const own = settings.parse(targetSettings);
    const { estate, errors, credentialId } = await readKubernetes(address, credentials, {
      port, ...(hostname ? { hostname } : {}), connectTimeoutMs: config.discoveryConnectTimeoutMs,
      pageSize: own.pageSize ?? DEFAULT_PAGE_SIZE, maxObjects: own.maxObjects ?? DEFAULT_MAX_OBJECTS, deadline,
    }, hostState);
    return { ...(estate ? { estate } : {}), errors, ...(credentialId ? { credentialId } : {}) };
  },
} as const satisfies InventoryConnector<typeof KUBERNETES_ERRORS>;
