// What the flows tell the inventory, run by the flow-inventory job (periodic, bounded; never per
// packet): each exporter becomes a FLOW_EXPORTER asset through the inventory writer (identity,
// facts, graph), linked by RUNS_ON to the host or network device at its address; the pairs of known
// assets that talked both ways in the last window add or refresh COMMUNICATES_WITH edges (source
// `flow`) carrying the flow evidence; and edges whose flows have not been seen for
// service.flows.communication-retire-hours lose that claim (retired when it was their last).
import type { Category } from '../inventory/asset-categories.js';
import { factValues } from '../inventory/asset-facts.js';
import type { IdentityLookup } from '../inventory/asset-identity.js';
import type { BundleAsset, BundleLink } from '../inventory/inventory-bundle.js';
import type { InventoryWriter } from '../inventory/inventory-writer.js';
import { assetsAtAddresses } from './address-assets.js';
import type { FlowAnalyticsStore } from './flow-analytics-store.js';
import type { CommunicationEvidence, FlowGraphRepository } from './flow-graph-repository.js';

export const FLOW_SOURCE = 'flow';
const FLOW_ACTOR = { kind: 'SYSTEM' as const, name: 'flows' };
const HOUR_MS = 3_600_000;
/** Exporters loaded per run; more wait for the next run. */
const EXPORTERS_PER_RUN = 500;
/** The conversations a run reads: the last 15 minutes of the 1-minute rollup, the 10,000 biggest pairs. */
export const COMMUNICATION_WINDOW_MS = 15 * 60_000;
const PAIRS_PER_RUN = 10_000;
/** Edges a retire statement releases; a run repeats it until fewer are left. */
const RETIRE_BATCH = 1000;
/** What an exporter runs on: the categories an exporter's address may name. */
const EXPORTING_CATEGORIES = new Set<Category>(['HOST', 'NETWORK_DEVICE']);
const PROTOCOL_NAMES: Record<string, string> = { 'netflow-v5': 'NetFlow v5', 'netflow-v9': 'NetFlow v9', ipfix: 'IPFIX', 'sflow-v5': 'sFlow v5' };

/** The name a FLOW_EXPORTER is known by (its identity, the NAME_IN_PARENT rule of a root asset). */
export const exporterName = (address: string) => `Flow exporter ${address}`;

export class FlowInventory {
  constructor(
    private readonly store: FlowAnalyticsStore,
    private readonly writer: InventoryWriter,
    private readonly identities: IdentityLookup,
    private readonly graph: FlowGraphRepository,
    /** How long a COMMUNICATES_WITH edge keeps its flow claim after its flows were last seen. */
    private readonly retireAfterMs: number,
  ) {}

  async run(now = Date.now()): Promise<{ exporters: number; communications: number; released: number }> {
    return { exporters: await this.loadExporters(now), communications: await this.loadCommunications(now), released: await this.retireCommunications(now) };
  }

  /**
   * New exporters, and once an hour those still sending, become (or refresh) their FLOW_EXPORTER
   * asset. Its address is kept as an attribute, not as an IP_ADDRESS identifier: that identifier
   * belongs to the device at the address, which flow ends resolve to.
   */
  async loadExporters(now: number): Promise<number> {
    const exporters = await this.store.exportersToSync(new Date(now - HOUR_MS), EXPORTERS_PER_RUN);
    if (exporters.length === 0) return 0;
    const observedAt = new Date(now).toISOString();
    const assets: BundleAsset[] = exporters.map((e) => ({
      key: e.address,
      assetType: 'FLOW_EXPORTER',
      displayName: exporterName(e.address),
      customAttributes: { exporterAddress: e.address, ...(e.protocol ? { protocol: PROTOCOL_NAMES[e.protocol] ?? e.protocol } : {}) },
    }));
    const factSets = new Map(assets.map((a) => [a.key, [{ source: FLOW_SOURCE, values: factValues(a) }]]));
    const devices = await assetsAtAddresses(this.identities, exporters.map((e) => e.address));
    const linked = new Map(exporters.flatMap((e) => {
      const device = devices.get(e.address);
      return device && EXPORTING_CATEGORIES.has(device.category) ? [[e.address, device.assetId] as const] : [];
    }));
    const links: BundleLink[] = [...linked].map(([address, deviceAssetId]) => ({ type: 'RUNS_ON', source: { key: address }, target: { id: deviceAssetId } }));
    const written = await this.writer.apply({ name: FLOW_SOURCE, actor: FLOW_ACTOR, factSets }, { observedAt, assets, links });
    const ids = new Map(written.assets.map((a) => [a.key, a.id]));
    await this.store.setExporterAssets(exporters.map((e) => ({ address: e.address, assetId: ids.get(e.address) as string, deviceAssetId: linked.get(e.address) ?? null })), new Date(now));
    return exporters.length;
  }

  /** COMMUNICATES_WITH from client to server for each pair of known assets that talked both ways in the window. */
  async loadCommunications(now: number): Promise<number> {
    const to = Math.floor(now / 60_000) * 60_000;
    const from = to - COMMUNICATION_WINDOW_MS;
    const pairs = await this.store.communicationPairs(new Date(from), new Date(to), PAIRS_PER_RUN);
    const assets = await assetsAtAddresses(this.identities, pairs.flatMap((p) => [p.client, p.server]));
    const edges = new Map<string, CommunicationEvidence>();
    for (const p of pairs) {
      const source = assets.get(p.client)?.assetId;
      const target = assets.get(p.server)?.assetId;
      if (!source || !target || source === target) continue;
      // Several addresses of one asset: their traffic adds up on one edge.
      const key = `${source}>${target}`;
      const edge = edges.get(key);
      const first = p.firstSeenAt.toISOString();
      const last = p.lastSeenAt.toISOString();
      if (!edge) edges.set(key, { source, target, bytes: p.bytes, packets: p.packets, flows: p.flows, firstSeenAt: first, lastSeenAt: last });
      else Object.assign(edge, { bytes: edge.bytes + p.bytes, packets: edge.packets + p.packets, flows: edge.flows + p.flows, firstSeenAt: first < edge.firstSeenAt ? first : edge.firstSeenAt, lastSeenAt: last > edge.lastSeenAt ? last : edge.lastSeenAt });
    }
    const rows = [...edges.values()];
    const links: BundleLink[] = rows.map((r) => ({ type: 'COMMUNICATES_WITH', source: { id: r.source }, target: { id: r.target } }));
    await this.writer.apply({ name: FLOW_SOURCE, actor: FLOW_ACTOR }, { observedAt: new Date(now).toISOString(), assets: [], links });
    await this.graph.setCommunicationEvidence(rows, { from: new Date(from).toISOString(), to: new Date(to).toISOString() });
    return rows.length;
  }

  /**
   * The flow claim of COMMUNICATES_WITH edges whose flows were last seen more than the retire time
   * before `now`, in bounded statements; an edge no other source reports is retired. Returns how
   * many edges lost the claim.
   */
  async retireCommunications(now: number): Promise<number> {
    const before = new Date(now - this.retireAfterMs).toISOString();
    let released = 0;
    let batch: number;
    do {
      batch = await this.graph.retireCommunications(FLOW_SOURCE, before, RETIRE_BATCH);
      released += batch;
    } while (batch === RETIRE_BATCH);
    return released;
  }
}
