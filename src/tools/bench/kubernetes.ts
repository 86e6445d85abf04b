// The kubernetes section: the Kubernetes API server double (tools/kubernetes) holding 5,000 running
// pods on 50 nodes, inventoried by the whole service through its API (a KUBERNETES target, scanned
// three times: the first run creates the estate, the others find it unchanged), and the read alone
// (the lists in pages, mapped, no load) with its API requests, beside the double's own answers to
// the same requests (the floor: what serving and parsing the pages costs without the connector).
import https from 'node:https';
import os from 'node:os';
import type { RevealedCredential } from '../../features/credentials/credential-service.js';
import { readKubernetes } from '../../features/discovery/connectors/kubernetes/kubernetes.js';
import { KubernetesDouble } from '../kubernetes/kubernetes-double.js';
import { elapsedMs, loadAverage, machine, median, scanRepeatedly, withDataDir, withService, writeSection, type BenchRunView } from './support.js';

const NODES = 50;
const PODS = 5000;
const PAGE_SIZE = 500;
const RUNS = 3;
const READS = 5;
const RUN_DEADLINE_MS = 20 * 60_000;
const TOKEN = 'bench-token';

interface RunView extends BenchRunView {
  summary: { assetsCreated: number };
}

/** The double's pages fetched and parsed by a bare HTTPS client, the token and the certificate as the connector has them. */
async function floorRead(k8s: KubernetesDouble): Promise<{ ms: number; requests: number }> {
  const start = process.hrtime.bigint();
  let requests = 0;
  for (const path of ['/api/v1/namespaces/kube-system', '/api/v1/nodes', '/api/v1/pods', '/api/v1/namespaces', '/api/v1/services', '/apis/networking.k8s.io/v1/ingresses']) {
    let token: string | undefined;
    do {
      const url = `https://127.0.0.1:${k8s.port}${path}?limit=${PAGE_SIZE}${token ? `&continue=${encodeURIComponent(token)}` : ''}`;
      const page = (await fetchJson(url, k8s.certificate)) as { metadata?: { continue?: string } };
      requests++;
      token = page.metadata?.continue || undefined;
    } while (token);
  }
  return { ms: elapsedMs(start), requests };
}

function fetchJson(url: string, ca: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    https.get(url, { ca, headers: { Authorization: `Bearer ${TOKEN}`, Accept: 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
      res.on('error', reject);
    }).on('error', reject);
  });
}

export async function kubernetesBench(): Promise<void> {
  const load = loadAverage();
  const k8s = await new KubernetesDouble(TOKEN).scaleTo(NODES, PODS).start();
  try {
    const credential = { id: 'bench', name: 'bench', kind: 'KUBERNETES_TOKEN', settings: { caCertificate: k8s.certificate }, secrets: { token: TOKEN } } as unknown as RevealedCredential;
    const pins = { pinOrCompare: async () => undefined };
    const reads: { ms: number; calls: number; assets: number }[] = [];
    const floors: { ms: number; requests: number }[] = [];
    for (let i = 0; i < READS; i++) {
      floors.push(await floorRead(k8s));
      const start = process.hrtime.bigint();
      const read = await readKubernetes('127.0.0.1', [credential], { port: k8s.port, connectTimeoutMs: 5000, pageSize: PAGE_SIZE, maxObjects: 100_000, deadline: Date.now() + RUN_DEADLINE_MS }, pins);
      if (read.errors.length || !read.estate?.complete) throw new Error(`the read failed: ${JSON.stringify(read.errors)}`);
      reads.push({ ms: elapsedMs(start), calls: read.calls, assets: read.estate.assets.length });
    }
    const runs = await withDataDir((dataDir) =>
      withService(dataDir, {}, async (_service, api) => {
        const credentialId = (await api.post<{ data: { id: string } }>('/api/v1/credentials', { name: 'cluster', kind: 'KUBERNETES_TOKEN', matchPatterns: [], settings: { caCertificate: k8s.certificate }, secrets: { token: TOKEN } })).data.id;
        const targetId = (await api.post<{ data: { id: string } }>('/api/v1/discovery/targets', {
          name: 'cluster', addresses: ['127.0.0.1'], methods: ['KUBERNETES'], credentialIds: [credentialId], ports: { KUBERNETES: k8s.port }, settings: { KUBERNETES: { pageSize: PAGE_SIZE } },
        })).data.id;
        return scanRepeatedly<RunView>(api, targetId, RUNS, RUN_DEADLINE_MS);
      }),
    );
    const [first, ...rest] = runs as [RunView & { seconds: number }, ...(RunView & { seconds: number })[]];
    const read = reads[0] as (typeof reads)[number];
    const floor = median(floors.map((f) => f.ms));
    const readMs = median(reads.map((r) => r.ms));
    const rescan = median(rest.map((r) => r.seconds));
    const ratio = (ms: number) => `${(ms / floor).toFixed(2)}×`;
    writeSection('kubernetes', `## Kubernetes discovery (API server double)

${machine()} · load average ${load} at the start, ${(os.loadavg()[0] as number).toFixed(1)} at the end

The Kubernetes API server double (\`src/tools/kubernetes/kubernetes-double.ts\`, HTTPS on loopback) holding ${PODS} running pods (one container each) on ${NODES} nodes, copies of the published examples of \`test/fixtures/kubernetes/\`, read with \`settings.KUBERNETES.pageSize\` ${PAGE_SIZE}.

| | Time | API requests | Against the floor |
|---|---|---|---|
| Floor: the same pages fetched and parsed by a bare HTTPS client, median of ${READS} | ${(floor / 1000).toFixed(2)} s | ${floors[0]?.requests} | 1.00× |
| Read alone (certificate, kube-system, five lists in pages; ${read.assets} assets mapped), median of ${READS} | ${(readMs / 1000).toFixed(2)} s | ${read.calls} | ${ratio(readMs)} |
| Whole run through the API, first (creates ${first.summary.assetsCreated} assets) | ${first.seconds.toFixed(1)} s | as above | ${ratio(first.seconds * 1000)} |
| Whole run, rescans (nothing changed), median of ${rest.length} | ${rescan.toFixed(1)} s | as above | ${ratio(rescan * 1000)} |

A smaller run than the 100,000-asset estate of the sections above: the 5,000 pods that issue 40 names, each figure beside the bare read of the same pages (the floor) in the same run.
`);
  } finally {
    await k8s.stop();
  }
}
