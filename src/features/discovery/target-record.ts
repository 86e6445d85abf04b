// A discovery target as the rest of the service sees it, apart from the store that holds it.
import { inventoryConnector, type DiscoveryMethod } from './connectors/registry.js';

export interface TargetRecord {
  id: string;
  name: string;
  addresses: string[];
  addressCount: number;
  methods: DiscoveryMethod[];
  /** Port per inventory method, as set on the target (a method left out uses its default). */
  ports: Partial<Record<string, number>>;
  /** Connector settings per method. */
  settings: Partial<Record<string, Record<string, unknown>>>;
  credentialIds: string[];
  /** The group of remote scanners that scans it; null: the central workers. */
  scannerGroup: string | null;
  schedule: string | null;
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** The target's port for a method: its own, or the connector's default. */
export function portOf(target: Pick<TargetRecord, 'ports'>, method: string): number {
  return target.ports[method] ?? inventoryConnector(method)?.defaultPort ?? 0;
}

/** Finds one target (diagnosis reads the target of a run). */
export interface TargetLookup {
  find(id: string): Promise<TargetRecord | undefined>;
}
