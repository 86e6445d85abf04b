// The shapes the UI reads from the API (api.yaml is the contract).
export interface ParentRef {
  id: string;
  displayName: string;
  assetType: string;
  assetCategory: string;
  via: string;
}

export interface ConnectedTo {
  assetId: string;
  assetDisplayName: string | null;
  interfaceId: string;
  port: string;
  discoveredVia: string;
  confidence: number;
}

export interface Asset {
  id: string;
  displayName: string;
  assetType: string;
  assetCategory: string;
  assetCategoryLabel: string;
  assetSubtype: string;
  assetSubtypeLabel: string;
  virtual: boolean | null;
  status: string;
  vendor: string | null;
  model: string | null;
  customAttributes: string;
  consecutiveScanFailures: number;
  lastScanOutcome: string | null;
  lastScanAt: string | null;
  hostname?: string | null;
  fqdn?: string | null;
  site?: string | null;
  environment?: string | null;
  serialNumber?: string | null;
  macAddresses?: string[];
  ipAddresses?: string[];
  staleSince?: string | null;
  decommissionedAt?: string | null;
  firstSeenAt?: string | null;
  lastSeenAt?: string | null;
  updatedAt?: string | null;
  sources?: string[];
  parent?: ParentRef;
  connectedTo?: ConnectedTo[];
}

export interface Relationship {
  id: string;
  relationshipType: string;
  active: boolean;
  sourceAssetId: string;
  sourceDisplayName: string;
  sourceAssetType: string;
  targetAssetId: string;
  targetDisplayName: string;
  targetAssetType: string;
  lastSeenAt: string | null;
}

export interface SchemaEntry {
  type: string;
  category: string;
  label: string;
  categoryLabel: string;
  isRoot: boolean;
  synthesized: boolean;
  virtual: boolean | null;
  cloud: boolean;
  parent: { via: string; viaAlternatives: string[]; direction: string; parentCategory: string } | null;
  typeFields: { name: string; type: string; description: string }[];
  customAttributeKeys: string[];
  childTypes: string[];
}

export interface Run {
  id: string;
  targetId: string | null;
  targetName: string;
  trigger: string;
  status: string;
  queuedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  progress: { done: number; total: number };
  summary: { hostsResponding: number; assetsCreated: number; assetsUpdated: number; errors: number };
  failureReason: string | null;
  errors?: { address: string | null; method: string; stage: string; code: string; message: string }[];
}

export interface Target {
  id: string;
  name: string;
  addresses: string[];
  methods: string[];
  credentialIds: string[];
  schedule: string | null;
  sshPort?: number;
  snmpPort?: number;
}

export interface Credential {
  id: string;
  name: string;
  kind: string;
  description?: string | null;
  matchPatterns: string[];
  settings: Record<string, unknown>;
  secretFields?: string[];
  createdAt: string;
  updatedAt: string;
}

export interface InsightFeed {
  name: string;
  title: string;
  description: string;
  store: 'neo4j' | 'postgres';
  parameters: { name: string; type: 'integer' | 'date-time'; description: string; default: number; minimum?: number; maximum?: number }[];
}

export interface InsightRow {
  rank: number;
  assets: { id: string; displayName: string; assetType: string; assetCategory: string }[];
  evidence: Record<string, unknown>;
}

export interface InsightResult {
  data: InsightRow[];
  feed: string;
  limit: number;
  capped: boolean;
  links: { first: string };
}
