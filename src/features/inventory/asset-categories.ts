// The asset categories (docs/interface.md §2.3) and their Neo4j labels: the coarse half of the
// taxonomy, which the type definitions name and every reader of an asset's category needs.
export const CATEGORIES = {
  HOST: { label: 'Host', nodeLabel: 'Host' },
  NETWORK_DEVICE: { label: 'Network Device', nodeLabel: 'NetworkDevice' },
  PRINTER: { label: 'Printer', nodeLabel: 'Printer' },
  IOT_DEVICE: { label: 'IoT Device', nodeLabel: 'IotDevice' },
  VIRTUALIZATION_MANAGER: { label: 'Virtualization Manager', nodeLabel: 'VirtualizationManager' },
  CLUSTER: { label: 'Cluster', nodeLabel: 'Cluster' },
  STORAGE: { label: 'Storage', nodeLabel: 'Storage' },
  NETWORK: { label: 'Network', nodeLabel: 'Network' },
  SOFTWARE: { label: 'Software', nodeLabel: 'Software' },
  CLOUD: { label: 'Cloud', nodeLabel: 'Cloud' },
  FLOW_EXPORTER: { label: 'Flow Exporter', nodeLabel: 'FlowExporter' },
  ENDPOINT: { label: 'Endpoint', nodeLabel: 'Endpoint' },
  // Synthesized from PostgreSQL rows (docs/interface.md §2.3: "their own category").
  PROCESS: { label: 'Process', nodeLabel: null },
  SERVICE: { label: 'Service', nodeLabel: null },
} as const;

export type Category = keyof typeof CATEGORIES;
/** The categories of docs/interface.md §2.3 (api.yaml's AssetCategory): those of graph assets, which the category filter and the schema accept. */
export type ListedCategory = Exclude<Category, 'PROCESS' | 'SERVICE'>;

export function isListedCategory(value: string): value is ListedCategory {
  return Object.hasOwn(CATEGORIES, value) && value !== 'PROCESS' && value !== 'SERVICE';
}

export const LISTED_CATEGORIES = Object.keys(CATEGORIES).filter(isListedCategory);
