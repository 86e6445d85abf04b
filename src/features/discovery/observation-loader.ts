// The load step of a run: its observations translated into a bundle (observation-bundle.ts), handed
// to the inventory writer (reconcile identity, load graph, load sub-records, retire what complete
// reads no longer show), then each targeted asset's scan outcome and the hosts the run reached.
import os from 'node:os';
import type { IdentityLookup, MatchRule } from '../inventory/asset-identity.js';
import type { EstateScope } from '../inventory/inventory-bundle.js';
import type { InventoryWriter } from '../inventory/inventory-writer.js';
import type { ScanMethod } from './host-observation.js';
import type { HostStateStore, RunHost } from './host-state-store.js';
import { isApplicationKey, keysOfAddress, translateRun, type AddressResult } from './observation-bundle.js';
import type { RunSummary } from './run-record.js';
import type { ScanGraphRepository, ScanOutcome } from './scan-graph-repository.js';

export const DISCOVERY_SOURCE = 'discovery';
const DISCOVERY_ACTOR = { kind: 'SYSTEM' as const, name: 'discovery' };

/** The methods that got in at an address: read it, its estate, or other addresses from it. */
const methodsIn = (result: AddressResult) => new Set([...result.observations, ...(result.estates ?? []), ...(result.addressFacts ?? [])].map((o) => o.method));

function outcomeOf(result: AddressResult): ScanOutcome {
  const gotIn = methodsIn(result);
  if (result.attempted.length === 0) return result.responding ? 'SUCCESS' : 'FAILED';
  if (gotIn.size === 0) return 'FAILED';
  // An error of another address (a stale DNS record) says nothing of this host's scan.
  return gotIn.size < result.attempted.length || result.errors.some((e) => e.address === null || e.address === result.address) ? 'PARTIAL' : 'SUCCESS';
}

/** The addresses of this machine: the connector's own SSH session shows among a host's connections. */
function ownAddresses(): Set<string> {
  return new Set(Object.values(os.networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address)));
}

/** Records of one estate scope that were loaded as an asset another of its records already is. */
export interface MergedRecords {
  method: ScanMethod;
  scope: string;
  records: number;
}

export class ObservationLoader {
  constructor(
    private readonly writer: InventoryWriter,
    private readonly identities: IdentityLookup,
    private readonly scans: ScanGraphRepository,
    private readonly hostState: HostStateStore,
    private readonly onMerged: (merged: MergedRecords) => void = () => undefined,
  ) {}

  async load(runId: string, results: AddressResult[], sshPort: number, observedAt: string): Promise<RunSummary> {
    // Addresses that only answered the sweep: known ones are seen again, unknown ones become endpoints.
    const swept = results.filter((r) => r.observations.length === 0 && !r.estates?.length);
    const found = await this.identities.lookup(swept.map((r) => ({ rule: 'IP_ADDRESS' as const, value: r.address })));
    const known = new Map(swept.flatMap((r) => {
      const id = found.get(`IP_ADDRESS:${r.address}`)?.assetId;
      return id ? [[r.address, id] as const] : [];
    }));
    const { bundle, factSets, reads } = translateRun(results, { observedAt, sshPort, ownAddresses: ownAddresses(), known });
    const written = await this.writer.apply({ name: DISCOVERY_SOURCE, actor: DISCOVERY_ACTOR, factSets }, bundle, reads);
    const ids = new Map<string, { id: string; created: boolean; matchedBy: MatchRule | null }>(written.assets.map((a) => [a.key, a]));
    this.countMerged(results, reads.estates ?? [], ids);

    // Every address that is an asset now: loaded by this run, or known (reached or not).
    const runHosts: RunHost[] = [];
    const respondingHost = new Set<string>();
    for (const r of results) {
      const own = keysOfAddress(r).map((key) => ids.get(key)).find((entry) => entry !== undefined);
      const id = own?.id ?? known.get(r.address);
      if (!id) continue;
      if (r.responding) respondingHost.add(r.address);
      runHosts.push({ address: r.address, assetId: id, created: own?.created ?? false, matchedBy: own ? own.matchedBy : 'IP_ADDRESS', methods: [...methodsIn(r)], outcome: outcomeOf(r) });
    }
    await Promise.all([this.scans.setOutcomes(runHosts.map((h) => ({ id: h.assetId, outcome: h.outcome })), observedAt), this.hostState.recordRunHosts(runId, runHosts)]);
    return {
      hostsResponding: results.filter((r) => r.responding || r.observations.length > 0).length,
      assetsCreated: written.assets.filter((a) => a.created && !isApplicationKey(a.key)).length,
      assetsUpdated: runHosts.filter((h) => !h.created && respondingHost.has(h.address)).length,
    };
  }

  /**
   * Two records of one estate scope that share an identity (a MAC, a cloud instance id) were loaded
   * as one asset, each adding its facts: said for each scope, so that the collision is seen.
   */
  private countMerged(results: AddressResult[], scopes: EstateScope[], ids: Map<string, { id: string }>): void {
    const estates = results.flatMap((r) => r.estates ?? []);
    for (const { scope, members } of scopes) {
      const assetIds = members.flatMap((key) => ids.get(key)?.id ?? []);
      const records = assetIds.length - new Set(assetIds).size;
      const method = estates.find((e) => scope === e.scope || scope.startsWith(`${e.scope}/`))?.method;
      if (records > 0 && method) this.onMerged({ method, scope, records });
    }
  }
}
